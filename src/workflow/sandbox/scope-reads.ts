import type { Scope } from '../../engine/evaluation.js';
import { isPropertyName, significant, tokenize, type Token } from './tokens.js';

/** The parts of the scope besides common_data (always sent) that code may read. */
export type ScopeField =
  | 'input'
  | 'workflow_input'
  | 'contexts'
  | 'context_limits'
  | 'agents'
  | 'roster'
  | 'last_agent_response'
  | 'last_response'
  | 'last_tool_calls'
  | 'sub_workflow_result'
  | 'last_error';
/** What code reads: some fields, or everything (when it reaches the scope in ways a scan cannot follow). */
export type ScopeReads = ReadonlySet<ScopeField> | 'all';

// A field is read when any of its names (or a name that builds from it) occurs anywhere in the source,
// even in a string or a comment: a generous test, so a field is only ever left out when it cannot be named.
const NAMED_BY: [ScopeField, RegExp][] = [
  ['input', /input/],
  ['workflow_input', /input/],
  ['contexts', /context/i],
  ['context_limits', /context/i],
  ['agents', /agents|getAgent|getToolCalls/],
  ['roster', /agents|getAgent|getToolCalls/],
  ['last_agent_response', /last_agent_response|last_response/],
  ['last_response', /last_response/],
  ['last_tool_calls', /tool|function/i],
  ['sub_workflow_result', /sub_workflow/],
  ['last_error', /error/i],
];
// Ways to reach the scope without naming a field: reflection, code built at run time, `arguments`.
const DYNAMIC = new Set(['arguments', 'eval', 'Function', 'globalThis', 'Reflect', 'with']);
// Properties that build code at run time, wherever they are read from.
const DYNAMIC_PROPERTIES = new Set(['constructor', 'evaluateExpression']);
// Words before a parenthesis that is not a parameter list.
const NOT_PARAMETERS = new Set(['if', 'while', 'for', 'switch', 'catch', 'with', 'return', 'typeof', 'await', 'in', 'of']);

/**
 * Which scope fields some code reads, by a static scan. `this`, and the first parameter of any function in
 * it (a function written as a string, or a handler, is given `this` as its argument), used other than as
 * `x.name`, or any reflective name, reads all.
 */
export function scopeReadsOf(source: string): ScopeReads {
  if (source.includes('\\u')) return 'all';
  const tokens = significant(tokenize(source));
  const parameters = firstParameters(tokens);
  const aliases = new Set(['this', ...parameters.map((k) => tokens[k]!.text)]);
  // Where a parameter is declared it names no value yet: only its uses count.
  const declared = new Set(parameters);
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type !== 'ident') continue;
    if (DYNAMIC_PROPERTIES.has(t.text)) return 'all';
    if (isPropertyName(tokens, k)) continue;
    if (DYNAMIC.has(t.text)) return 'all';
    if (!aliases.has(t.text) || declared.has(k)) continue;
    const dot = tokens[k + 1];
    const name = tokens[k + 2];
    if (!dot || (dot.text !== '.' && dot.text !== '?.') || !name || name.type !== 'ident') return 'all';
  }
  return new Set(NAMED_BY.filter(([, named]) => named.test(source)).map(([field]) => field));
}

/** The union of what several pieces read. */
export function unionReads(reads: ScopeReads[]): ScopeReads {
  const out = new Set<ScopeField>();
  for (const r of reads) {
    if (r === 'all') return 'all';
    for (const f of r) out.add(f);
  }
  return out;
}

/** The scope with only what the code reads (common_data always: the answer starts from it). */
export function pruneScope(scope: Scope, reads: ScopeReads): Partial<Scope> {
  if (reads === 'all') return scope;
  const out: Partial<Scope> = { common_data: scope.common_data };
  for (const field of reads) if (scope[field] !== undefined) (out as Record<string, unknown>)[field] = scope[field];
  return out;
}

// Where the first parameter of every function is declared (token indexes): `(a, b) => ...`, `a => ...`, `function f(a) {...}`, `m(a) {...}`.
function firstParameters(tokens: Token[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type === 'ident' && tokens[k + 1]?.text === '=>') out.push(k);
    if (t.text !== '(' || t.type !== 'punct' || NOT_PARAMETERS.has(tokens[k - 1]?.text ?? '')) continue;
    let depth = 0;
    let close = k;
    for (; close < tokens.length; close++) {
      const c = tokens[close]!;
      if (c.type !== 'punct') continue;
      if (c.text === '(') depth += 1;
      else if (c.text === ')' && --depth === 0) break;
    }
    const after = tokens[close + 1]?.text;
    const first = tokens[k + 1];
    const at = first?.text === '...' ? k + 2 : k + 1;
    if ((after === '{' || after === '=>') && tokens[at]?.type === 'ident') out.push(at);
  }
  return out;
}

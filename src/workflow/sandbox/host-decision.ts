import type { Evaluation, EvaluationResult, Scope } from '../../engine/evaluation.js';
import { parseTemplate, type TemplatePart } from './template.js';

type Code = NonNullable<Evaluation['code']>;
/** What an evaluation asks to run, without its scope. */
export type EvaluationRequest = Pick<Evaluation, 'purpose' | 'code' | 'transitions' | 'fields'>;
/** The data a decision in the host may read. */
export type HostScope = Pick<Scope, 'common_data' | 'input' | 'last_agent_response' | 'sub_workflow_result' | 'workflow_input'>;

// Code that is no code: a literal, a path into plain data, or a template of plain data.
type Path = { kind: 'path'; root: keyof typeof ROOTS; keys: string[] };
type Form = { kind: 'literal'; value: unknown } | Path | { kind: 'template'; parts: TemplatePart[] } | { kind: 'compare'; path: Path; equal: boolean; value: string | number | boolean | null } | null;
const NOT = Symbol('needs the sandbox');
const ROOTS = { common_data: 1, variables: 1, input: 1, last_agent_response: 1, sub_workflow_result: 1 };
const PATH = /^(?:this\.)?(common_data|variables|input|last_agent_response|sub_workflow_result)((?:\.[A-Za-z_$][\w$]*)*)$/;
// Numbers as JSON writes them (a leading zero makes an octal literal in sloppy code, which JSON.parse refuses).
const LITERAL = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?|'[^'\\\n]*'|"[^"\\\n]*")$/;
// A path compared by === or !== with a literal, either way round (the literal's text as LITERAL takes it).
const COMPARE = /^(.+?)\s*(===|!==)\s*(.+)$/;
// Template heads that name guest objects (contexts, agents, parsed tool calls), not plain data.
const GUEST_HEADS = new Set(['contexts', 'agents', 'last_tool_calls']);
const TEMPLATE_SCOPE = new Set(['input', 'last_agent_response', 'last_tool_calls', 'sub_workflow_result', 'last_error', 'contexts', 'agents']);
const MAX_LOG_CHARS = 1000;
const forms = new Map<string, Form>();

/**
 * The result of an evaluation that runs no code, decided in the host exactly as the sandbox would decide
 * it: a transition whose condition is null, `true`, `false`, a path to a boolean or a path compared with a
 * literal by === or !== (and that has no before-code), an input that is a literal, a path into common_data / input / the last answer, or a
 * template of those. Null when the evaluation needs the sandbox (code, or data the sandbox would reject).
 */
export function decideInHost(request: EvaluationRequest, scope: HostScope, maxLogLines = 100): EvaluationResult | null {
  if (request.purpose === 'error') return null;
  const logs: string[] = [];
  let value: unknown;
  if (request.transitions) {
    // The sandbox compiles every condition and before-code first (a broken one fails even when not reached).
    if (!mayDecideInHost(request)) return null;
    value = -1;
    for (const [i, t] of request.transitions.entries()) {
      const holds = t.condition ? valueIn(t.condition, scope, logs) : true;
      if (holds !== true && holds !== false) return null;
      if (holds) {
        if (t.before) return null;
        value = i;
        break;
      }
    }
  } else if (request.fields) {
    const out: Record<string, unknown> = {};
    for (const [name, code] of Object.entries(request.fields)) {
      const v = valueIn(code, scope, logs);
      if (v === NOT || name === '__proto__') return null;
      if (v !== undefined) out[name] = v;
    }
    value = out;
  } else if (request.code) {
    const v = valueIn(request.code, scope, logs);
    if (v === NOT) return null;
    value = v;
  } else return null;
  if (logs.length > maxLogLines) logs.splice(maxLogLines, logs.length, `(${logs.length - maxLogLines} more console lines not kept)`);
  return { ok: true, value, common_data: scope.common_data, ...(logs.length > 0 ? { logs } : {}) };
}

/** Whether every piece of a request is of a kind the host can decide (it still may not, for the data it meets). */
export function mayDecideInHost(request: EvaluationRequest): boolean {
  if (request.purpose === 'error') return false;
  if (request.transitions) return request.transitions.every((t) => (t.condition === null || formOf(t.condition) !== null) && t.before === null);
  if (request.fields) return Object.values(request.fields).every((c) => formOf(c) !== null);
  return request.code !== undefined && formOf(request.code) !== null;
}

function valueIn(code: Code, scope: HostScope, logs: string[]): unknown {
  const form = formOf(code);
  if (!form) return NOT;
  if (form.kind === 'literal') return form.value;
  if (form.kind === 'path') return read(form.root, form.keys, scope);
  if (form.kind === 'compare') {
    const v = read(form.path.root, form.path.keys, scope);
    // read gives only primitives (or undefined): === means the same in QuickJS.
    return v === NOT ? NOT : (v === form.value) === form.equal;
  }
  return render(form.parts, scope, logs);
}

function formOf(code: Code): Form {
  if (code.kind === 'handler' || code.kind === 'statements') return null;
  const key = `${code.kind}\0${code.source}`;
  let form = forms.get(key);
  if (form !== undefined) return form;
  if (code.kind === 'template') form = plainTemplate(parseTemplate(code.source));
  else {
    const source = code.source.replace(/[\s;]+$/, '').trim();
    const literal = literalOf(source);
    const path = pathOf(source);
    if (literal !== NOT) form = { kind: 'literal', value: literal };
    else if (path) form = path;
    else form = comparisonOf(source);
  }
  if (forms.size >= 2000) forms.clear();
  forms.set(key, form);
  return form;
}

// this.input is the workflow's input (a String object in the sandbox), not the state's input the free name reads.
function pathOf(source: string): Path | null {
  const path = source.startsWith('this.input') ? null : PATH.exec(source);
  return path ? { kind: 'path', root: path[1] as keyof typeof ROOTS, keys: path[2] ? path[2].slice(1).split('.') : [] } : null;
}

function literalOf(source: string): unknown {
  if (!LITERAL.test(source)) return NOT;
  if (source.startsWith("'")) return source.slice(1, -1);
  try {
    return JSON.parse(source) as unknown;
  } catch {
    // A control character inside double quotes: JavaScript takes it, JSON does not; the sandbox decides.
    return NOT;
  }
}

// `path === literal`, `literal !== path`: the commonest condition (SynthDev's `last_agent_response !== 'done'`).
function comparisonOf(source: string): Form {
  const parts = COMPARE.exec(source);
  if (!parts) return null;
  const [left, op, right] = [parts[1]!.trim(), parts[2]!, parts[3]!.trim()];
  for (const [p, l] of [
    [left, right],
    [right, left],
  ] as const) {
    const path = pathOf(p);
    const value = literalOf(l);
    if (path && value !== NOT) return { kind: 'compare', path, equal: op === '===', value: value as string | number | boolean | null };
  }
  return null;
}

function plainTemplate(parts: TemplatePart[]): Form {
  return parts.every((p) => typeof p === 'string' || !GUEST_HEADS.has(p.path[0]!)) ? { kind: 'template', parts } : null;
}

// JavaScript's property reads on JSON data; anything inherited, a read of null, or an object or array as the
// value (the sandbox checks those for keys such as __proto__) is left to the sandbox.
function read(root: keyof typeof ROOTS, keys: string[], scope: HostScope): unknown {
  let v: unknown = root === 'variables' ? scope.common_data : scope[root];
  for (const k of keys) {
    if (typeof v === 'string' && k === 'length') v = v.length;
    else if (typeof v === 'object' && v !== null) {
      if (Object.hasOwn(v, k)) v = (v as Record<string, unknown>)[k];
      else if (k in v) return NOT;
      else v = undefined;
    } else return NOT;
  }
  return typeof v === 'object' && v !== null ? NOT : v;
}

// The guest's template rendering (GUEST_MODULES.template), on plain data: {input.x}, {common_data.x}, {x}.
function render(parts: TemplatePart[], scope: HostScope, logs: string[]): string {
  const cd = scope.common_data;
  const self: Record<string, unknown> = { input: scope.input, last_agent_response: scope.last_agent_response, sub_workflow_result: scope.sub_workflow_result };
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const [head, ...rest] = part.path as [string, ...string[]];
    let v: unknown;
    const given = scope.workflow_input;
    if (head === 'input' && given) v = rest.length === 0 ? given.text : dig(cd, rest) !== undefined ? dig(cd, rest) : dig({ [given.name]: given.value }, rest);
    else if (head === 'input' && rest.length > 0) v = dig(cd, rest) !== undefined ? dig(cd, rest) : dig(scope.input, rest);
    else if (head === 'common_data' || head === 'variables') v = dig(cd, rest);
    else if (head !== 'input' && own(cd, head)) v = dig(cd, part.path);
    else v = TEMPLATE_SCOPE.has(head) ? dig(self[head], rest) : undefined;
    if (v === undefined || v === null) {
      const line = `template: ${part.raw} is not set; rendered as empty`;
      logs.push(line.length > MAX_LOG_CHARS ? `${line.slice(0, MAX_LOG_CHARS)}...` : line);
    } else out += typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

function own(o: unknown, k: string): boolean {
  return o !== null && typeof o === 'object' && Object.hasOwn(o, k);
}

function dig(v: unknown, path: string[]): unknown {
  for (const k of path) {
    if (!own(v, k)) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

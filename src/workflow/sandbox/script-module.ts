import { applyEdits, findImport } from './shorthand.js';
import { isPropertyName, significant, tokenize, type Token } from './tokens.js';

/** A workflow's script.js made loadable in the sandbox: `export` keywords gone, its top-level names listed. */
export type ScriptModule = { ok: true; source: string; names: string[] } | { ok: false; error: string };

const DECLARES = new Set(['function', 'async', 'const', 'let', 'var', 'class']);

/**
 * Turns seed 001's script.js (`export function name() {...}` beside plain helpers) into a script body:
 * `export` keywords are dropped (`export { a, b }` lists too), `export default <expr>` keeps its value as
 * `__default`, imports are refused. `names` are the top-level functions and variables handlers can name.
 */
export function loadScriptModule(source: string): ScriptModule {
  const imported = findImport(source);
  if (imported) return { ok: false, error: imported };
  const tokens = significant(tokenize(source));
  const edits: { start: number; end: number; text: string }[] = [];
  const names: string[] = [];
  let depth = 0;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type === 'punct' && (t.text === '{' || t.text === '(' || t.text === '[')) depth += 1;
    if (t.type === 'punct' && (t.text === '}' || t.text === ')' || t.text === ']')) depth -= 1;
    if (t.type === 'template') depth += (t.text.endsWith('${') ? 1 : 0) - (t.text.startsWith('}') ? 1 : 0);
    if (depth !== 0 || t.type !== 'ident') continue;
    if (t.text === 'export') {
      const next = tokens[k + 1];
      if (next?.text === '*') return { ok: false, error: 'script.js re-exports another module, but the sandbox has no modules: put the functions in script.js' };
      if (next?.text === '{') {
        let close = k + 1;
        while (close < tokens.length && tokens[close]!.text !== '}') close += 1;
        if (tokens[close + 1]?.text === 'from') return { ok: false, error: 'script.js re-exports another module, but the sandbox has no modules: put the functions in script.js' };
        const end = tokens[close + 1]?.text === ';' ? tokens[close + 1]! : tokens[close];
        edits.push({ start: t.start, end: end ? end.end : source.length, text: '' });
        k = close;
        continue;
      }
      if (next?.text === 'default') {
        const after = tokens[k + 2];
        const named = after && DECLARES.has(after.text) && after.text !== 'const' && after.text !== 'let' && after.text !== 'var';
        edits.push(named ? { start: t.start, end: after.start, text: '' } : { start: t.start, end: next.end, text: 'var __default =' });
        if (!named) names.push('__default');
        k += 1;
        continue;
      }
      edits.push({ start: t.start, end: next ? next.start : t.end, text: '' });
      continue;
    }
    const declared = declaredName(tokens, k);
    if (declared && !names.includes(declared)) names.push(declared);
  }
  return { ok: true, source: applyEdits(source, edits), names };
}

/**
 * The methods of SynthDev's `export default { name() {...}, other: function () {...}, third: () => ... }`:
 * the keys at the object literal's top level whose value is a function. Empty when the default export
 * is not an object literal.
 */
export function defaultExportMethods(source: string): string[] {
  const tokens = significant(tokenize(source));
  let k = tokens.findIndex((t, i) => t.type === 'ident' && t.text === 'export' && tokens[i + 1]?.text === 'default' && tokens[i + 2]?.text === '{');
  if (k === -1) return [];
  const names: string[] = [];
  let depth = 0;
  for (k += 2; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type === 'punct' && (t.text === '{' || t.text === '(' || t.text === '[')) depth += 1;
    if (t.type === 'punct' && (t.text === '}' || t.text === ')' || t.text === ']')) depth -= 1;
    if (t.type === 'template') depth += (t.text.endsWith('${') ? 1 : 0) - (t.text.startsWith('}') ? 1 : 0);
    if (depth === 0) break;
    if (depth !== 1) continue;
    const before = tokens[k - 1]!;
    if (before.text !== '{' && before.text !== ',') continue;
    // A key: `name(`, `async name(`, `*name(`, `name: function`, `name: (…) =>`, `name: x =>`, `'name': …`.
    let at = k;
    if ((tokens[at]!.text === 'async' || tokens[at]!.text === 'get' || tokens[at]!.text === 'set') && tokens[at + 1] && tokens[at + 1]!.text !== '(' && tokens[at + 1]!.text !== ':') at += 1;
    if (tokens[at]!.text === '*') at += 1;
    const key = tokens[at];
    if (!key || (key.type !== 'ident' && key.type !== 'string')) continue;
    const name = key.type === 'string' ? key.text.slice(1, -1) : key.text;
    const next = tokens[at + 1]?.text;
    const value = tokens[at + 2];
    const isFunction =
      next === '(' || (next === ':' && value !== undefined && (value.text === 'function' || value.text === 'async' || value.text === '(' || (value.type === 'ident' && tokens[at + 3]?.text === '=>')));
    if (isFunction && !names.includes(name)) names.push(name);
  }
  return names;
}

/** The name a top-level declaration starting at token k declares (`function f`, `async function f`, `const f =`, `class C`). */
function declaredName(tokens: Token[], k: number): string | null {
  const t = tokens[k]!;
  if (isPropertyName(tokens, k)) return null;
  let at = k;
  if (t.text === 'async') {
    if (tokens[k + 1]?.text !== 'function') return null;
    at = k + 1;
  }
  const keyword = tokens[at]!.text;
  if (!DECLARES.has(keyword) || keyword === 'async') return null;
  let name = tokens[at + 1];
  if (keyword === 'function' && name?.text === '*') name = tokens[at + 2];
  return name && name.type === 'ident' ? name.text : null;
}

import { isPropertyName, significant, tokenize, type Token } from './tokens.js';

/** The function the rewritten shorthand calls in the sandbox: the last call of a tool, or undefined. */
export const TOOL_LOOKUP = '__troupe_tool';

/**
 * Rewrites seed 000's `function.X.arguments.Y` shorthand (not valid JavaScript) to a lookup of the last
 * call of tool X: `__troupe_tool("X")?.arguments.Y`, undefined when X was not called. Token-aware: strings,
 * template text, regexes, comments, real `function` keywords and properties named `function` are left alone.
 */
export function rewriteShorthand(source: string): string {
  if (!source.includes('function')) return source;
  const tokens = significant(tokenize(source));
  const edits: { start: number; end: number; text: string }[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type !== 'ident' || t.text !== 'function') continue;
    if (isPropertyName(tokens, k)) continue;
    const dot = tokens[k + 1];
    const name = tokens[k + 2];
    if (!isPunct(dot, '.') || !name || name.type !== 'ident') continue;
    edits.push({ start: t.start, end: name.end, text: `${TOOL_LOOKUP}(${JSON.stringify(name.text)})` });
    const after = tokens[k + 3];
    // The tool may not have been called: the rest of the chain reads undefined instead of throwing.
    if (after && isPunct(after, '.')) edits.push({ start: after.start, end: after.end, text: '?.' });
    else if (after && isPunct(after, '[')) edits.push({ start: after.start, end: after.start, text: '?.' });
    k += 2;
  }
  return applyEdits(source, edits);
}

/** The first `import` (a static import, `import()` or `import.meta`) in code, as a message; null when there is none. */
export function findImport(source: string): string | null {
  if (!source.includes('import')) return null;
  const tokens = significant(tokenize(source));
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type !== 'ident' || t.text !== 'import') continue;
    if (isPropertyName(tokens, k)) continue;
    const after = tokens[k + 1];
    if (after && after.type === 'punct' && after.text === ':') continue;
    return `uses import, but the sandbox has no modules, files or network: pass data in through common_data`;
  }
  return null;
}

/** Applies non-overlapping edits (in source order) to a string. */
export function applyEdits(source: string, edits: { start: number; end: number; text: string }[]): string {
  if (edits.length === 0) return source;
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += source.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + source.slice(at);
}

function isPunct(t: Token | undefined, text: string): boolean {
  return t !== undefined && t.type === 'punct' && t.text === text;
}

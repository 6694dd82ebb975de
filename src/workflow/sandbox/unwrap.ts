import { significant, tokenize, type Token } from './tokens.js';

/**
 * When the whole source is one function, written as seed 000 does (`"() => { ... }"`, `"ctx => expr"`,
 * `"function () { ... }"`), a regular function expression for it: an arrow would keep a lexical `this`, so
 * its head becomes `function (params)` and an expression body becomes `{ return (expr); }`. Null when the
 * source is not just a function.
 */
export function functionSource(source: string): string | null {
  const tokens = trimmed(significant(tokenize(source)));
  if (tokens.length < 3) return null;
  const first = tokens[0]!;
  const last = tokens[tokens.length - 1]!;
  if (isPunct(first, '(') && matching(tokens, 0) === tokens.length - 1) {
    // A function in parentheses: `(function () { ... })` or `(() => ...)`.
    return functionSource(source.slice(first.end, last.start));
  }
  if (first.type === 'ident' && first.text === 'function') {
    const params = tokens.findIndex((t) => isPunct(t, '('));
    const open = params === -1 ? -1 : matching(tokens, params) + 1;
    if (open <= 0 || !isPunct(tokens[open], '{') || matching(tokens, open) !== tokens.length - 1) return null;
    return source.slice(first.start, last.end);
  }
  // An arrow: `(params) =>` or `param =>`.
  let arrow: number;
  if (isPunct(first, '(')) arrow = matching(tokens, 0) + 1;
  else if (first.type === 'ident' && first.text !== 'async') arrow = 1;
  else return null;
  const arrowToken = tokens[arrow];
  const body = tokens[arrow + 1];
  if (!isPunct(arrowToken, '=>') || !body) return null;
  const params = first.type === 'ident' ? first.text : source.slice(first.start + 1, tokens[arrow - 1]!.start);
  if (isPunct(body, '{')) {
    if (matching(tokens, arrow + 1) !== tokens.length - 1) return null;
    return `function (${params}) ${source.slice(body.start, last.end)}`;
  }
  return `function (${params}) { return (${source.slice(body.start, last.end)}\n); }`;
}

/** The source without trailing semicolons (an expression written `x;`). */
export function withoutTrailingSemicolons(source: string): string {
  const tokens = significant(tokenize(source));
  let end = tokens.length;
  while (end > 0 && isPunct(tokens[end - 1], ';')) end -= 1;
  if (end === tokens.length) return source;
  return end === 0 ? '' : source.slice(0, tokens[end - 1]!.end);
}

function trimmed(tokens: Token[]): Token[] {
  let end = tokens.length;
  while (end > 0 && isPunct(tokens[end - 1], ';')) end -= 1;
  return tokens.slice(0, end);
}

/** The index of the bracket closing the one at `open` (-1 when it is never closed). */
function matching(tokens: Token[], open: number): number {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const stack: string[] = [];
  for (let k = open; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.type !== 'punct') continue;
    const close = pairs[t.text];
    if (close) stack.push(close);
    else if (t.text === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return k;
    }
  }
  return -1;
}

function isPunct(t: Token | undefined, text: string): boolean {
  return t !== undefined && t.type === 'punct' && t.text === text;
}

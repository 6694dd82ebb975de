/** One lexical piece of JavaScript source: enough to tell code from strings, templates, regexes and comments. */
export interface Token {
  type: 'ident' | 'punct' | 'number' | 'string' | 'template' | 'regex' | 'comment' | 'space';
  start: number;
  end: number;
  text: string;
}

// After these a `/` starts a regex literal, not a division.
const BEFORE_REGEX = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);
const IDENT_START = /[A-Za-z_$\u0080-\uffff]/;
const IDENT_PART = /[\w$\u0080-\uffff]/;
const MULTI = ['...', '?.', '=>'];

/**
 * Splits JavaScript source into tokens (linear; never throws): template literals come as text pieces with
 * the code of their `${}` substitutions tokenized in between; unterminated literals run to the end.
 */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  // `{` opened in code, or `${` opened in a template: a `}` closes the innermost one.
  const braces: ('code' | 'template')[] = [];
  let i = 0;
  let previous: Token | null = null;
  const push = (type: Token['type'], start: number, end: number): void => {
    const token = { type, start, end, text: source.slice(start, end) };
    tokens.push(token);
    if (type !== 'space' && type !== 'comment') previous = token;
  };
  const templateFrom = (start: number): void => {
    // Scans template text from `start` (just after "`" or "}") to the closing "`" or a "${".
    let j = start;
    while (j < source.length) {
      const c = source[j];
      if (c === '\\') j += 2;
      else if (c === '`') {
        push('template', start - 1, j + 1);
        i = j + 1;
        return;
      } else if (c === '$' && source[j + 1] === '{') {
        push('template', start - 1, j + 2);
        braces.push('template');
        i = j + 2;
        return;
      } else j += 1;
    }
    push('template', start - 1, source.length);
    i = source.length;
  };
  while (i < source.length) {
    const c = source[i]!;
    const start = i;
    if (/\s/.test(c)) {
      while (i < source.length && /\s/.test(source[i]!)) i += 1;
      push('space', start, i);
    } else if (c === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
      push('comment', start, i);
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 2;
      push('comment', start, i);
    } else if (c === '"' || c === "'") {
      i += 1;
      while (i < source.length && source[i] !== c && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
      i = Math.min(i + 1, source.length);
      push('string', start, i);
    } else if (c === '`') {
      templateFrom(i + 1);
    } else if (c === '}' && braces.at(-1) === 'template') {
      braces.pop();
      templateFrom(i + 1);
    } else if (c === '/' && regexAllowed(previous)) {
      i = regexEnd(source, i);
      push(i > start + 1 ? 'regex' : 'punct', start, i);
    } else if (IDENT_START.test(c)) {
      while (i < source.length && IDENT_PART.test(source[i]!)) i += 1;
      push('ident', start, i);
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      i += 1;
      while (i < source.length && /[\w.]/.test(source[i]!)) i += 1;
      push('number', start, i);
    } else {
      const multi = MULTI.find((m) => source.startsWith(m, i) && !(m === '?.' && /[0-9]/.test(source[i + 2] ?? '')));
      i += multi ? multi.length : 1;
      if (c === '{') braces.push('code');
      if (c === '}') braces.pop();
      push('punct', start, i);
    }
  }
  return tokens;
}

/** The tokens that carry meaning (no spaces, no comments). */
export function significant(tokens: Token[]): Token[] {
  return tokens.filter((t) => t.type !== 'space' && t.type !== 'comment');
}

function regexAllowed(previous: Token | null): boolean {
  if (!previous) return true;
  if (previous.type === 'punct') return ![')', ']', '}'].includes(previous.text);
  if (previous.type === 'ident') return BEFORE_REGEX.has(previous.text);
  return false;
}

/** Where a regex literal starting at `start` ends (just `start + 1` when it is not one: a line break came first). */
function regexEnd(source: string, start: number): number {
  let j = start + 1;
  let inClass = false;
  while (j < source.length) {
    const c = source[j];
    if (c === '\n') return start + 1;
    if (c === '\\') j += 2;
    else {
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) {
        j += 1;
        while (j < source.length && IDENT_PART.test(source[j]!)) j += 1;
        return j;
      }
      j += 1;
    }
  }
  return start + 1;
}

/** True when the identifier at `k` is a property name (`a.name`, `a?.name`), not a keyword or a variable. */
export function isPropertyName(tokens: readonly Token[], k: number): boolean {
  const before = tokens[k - 1];
  return before !== undefined && before.type === 'punct' && (before.text === '.' || before.text === '?.');
}

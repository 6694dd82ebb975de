/** Where a JSON text first breaks the grammar, and what was expected there. */
export interface JsonSyntaxError {
  /** Offset in the text (UTF-16 code units) where the problem is. */
  offset: number;
  problem: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /["\\/bfnrt]|u[0-9a-fA-F]{4}/y;

/** A character as a message shows it: quoted, control characters escaped. */
function shown(c: string): string {
  return JSON.stringify(c);
}

type Want = 'value' | 'first-value' | 'key' | 'first-key' | 'colon' | 'after';

/**
 * Finds the first syntax error of a JSON text (V8's messages give no position for some errors, and a
 * position is not a line): a small iterative scanner of the JSON grammar, so a hostile file that nests a
 * million levels deep cannot overflow the stack. Null when the text is valid JSON.
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | null {
  const n = text.length;
  const open: ('{' | '[')[] = [];
  let i = 0;
  let want: Want = 'value';
  const fail = (offset: number, problem: string): JsonSyntaxError => ({ offset, problem });
  for (;;) {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
    if (i >= n) {
      if (want === 'after' && open.length === 0) return null;
      return fail(
        n,
        text.trim() === ''
          ? 'the file is empty'
          : `the file ends inside ${open.length ? `an ${open.at(-1) === '{' ? 'object' : 'array'} (a "${open.at(-1) === '{' ? '}' : ']'}" is missing)` : 'the JSON'}`,
      );
    }
    const c = text[i]!;
    switch (want) {
      case 'first-value':
      case 'value':
        if (c === ']' && want === 'first-value') {
          open.pop();
          i++;
          want = 'after';
          break;
        }
        if (c === '{' || c === '[') {
          open.push(c);
          i++;
          want = c === '{' ? 'first-key' : 'first-value';
          break;
        }
        if (c === '"') {
          const broken = scanString();
          if (broken) return broken;
          want = 'after';
          break;
        }
        if (c === '-' || (c >= '0' && c <= '9')) {
          NUMBER.lastIndex = i;
          if (!NUMBER.test(text)) return fail(i, 'a number is malformed');
          i = NUMBER.lastIndex;
          want = 'after';
          break;
        }
        {
          const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
          if (!literal) return fail(i, `expected a value (a string, number, object, array, true, false or null), found ${shown(c)}${c === ']' || c === '}' ? ' (a comma before it?)' : ''}`);
          i += literal.length;
          want = 'after';
        }
        break;
      case 'first-key':
      case 'key':
        if (c === '}' && want === 'first-key') {
          open.pop();
          i++;
          want = 'after';
          break;
        }
        if (c !== '"') return fail(i, `expected a double-quoted property name, found ${shown(c)}${c === '}' ? ' (a comma before it?)' : ''}`);
        {
          const broken = scanString();
          if (broken) return broken;
        }
        want = 'colon';
        break;
      case 'colon':
        if (c !== ':') return fail(i, `expected ":" after a property name, found ${shown(c)}`);
        i++;
        want = 'value';
        break;
      case 'after': {
        const top = open.at(-1);
        if (!top) return fail(i, `unexpected ${shown(c)} after the JSON value`);
        const close = top === '{' ? '}' : ']';
        if (c === ',') {
          i++;
          want = top === '{' ? 'key' : 'value';
        } else if (c === close) {
          open.pop();
          i++;
        } else return fail(i, `expected "," or "${close}" after ${top === '{' ? 'a property value' : 'an array element'}, found ${shown(c)}`);
        break;
      }
    }
  }

  function scanString(): JsonSyntaxError | null {
    const start = i;
    i++;
    while (i < n) {
      const ch = text.charCodeAt(i);
      if (ch === 0x22) {
        i++;
        return null;
      }
      if (ch === 0x5c) {
        ESCAPE.lastIndex = i + 1;
        if (!ESCAPE.test(text)) return fail(i, 'a bad escape in a string (use \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)');
        i = ESCAPE.lastIndex;
        continue;
      }
      if (ch < 0x20)
        return fail(
          i,
          `a control character (${ch === 0x0a ? 'a line break' : ch === 0x09 ? 'a tab' : `U+${ch.toString(16).padStart(4, '0')}`}) inside a string — write it as an escape (\\n, \\t) or close the string`,
        );
      i++;
    }
    return fail(start, 'a string is never closed (its closing " is missing)');
  }
}

/** Line and column (both from 1; the column counts characters, not UTF-16 units) of an offset in a text. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    start = at + 1;
  }
  return { line, column: Array.from(text.slice(start, offset)).length + 1 };
}

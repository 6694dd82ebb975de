import { describe, expect, it } from 'vitest';
import { findImport, rewriteShorthand } from '../../../src/workflow/sandbox/shorthand.js';
import { tokenize } from '../../../src/workflow/sandbox/tokens.js';

describe('the function.X.arguments.Y shorthand', () => {
  it('becomes an undefined-safe lookup of the last call of the tool', () => {
    expect(rewriteShorthand('function.review_work.arguments.improvement_needed === true')).toBe('__troupe_tool("review_work")?.arguments.improvement_needed === true');
    expect(rewriteShorthand('this.common_data.current_task = function.review_work.arguments.continue_message;')).toBe(
      'this.common_data.current_task = __troupe_tool("review_work")?.arguments.continue_message;',
    );
    expect(rewriteShorthand("function . review_work['arguments']")).toBe('__troupe_tool("review_work")?.[\'arguments\']');
  });

  it('is rewritten in the code of template substitutions, never in their text', () => {
    expect(rewriteShorthand('`function.a.arguments ${function.a.arguments.x}`')).toBe('`function.a.arguments ${__troupe_tool("a")?.arguments.x}`');
  });

  // Hostile and tricky sources kept as data: none of these may change.
  const untouched = [
    "'function.review_work.arguments.x'",
    '"function.review_work.arguments.x"',
    '`function.review_work.arguments.x`',
    '// function.review_work.arguments.x\n1',
    '/* function.review_work.arguments.x */ 1',
    '/function.review_work.arguments/.test(s)',
    'x = a / b; function.y',
    'function f() { return 1 } f.call(this)',
    'this.function.review_work',
    'obj?.function.x',
    '(function () { return 1; }).call(this)',
    'const s = "it\'s function.a.b"',
    "'unterminated function.a.b",
  ];
  it.each(untouched)('leaves %j alone (strings, comments, regexes, real function keywords, properties)', (source) => {
    const expected = source === 'x = a / b; function.y' ? 'x = a / b; __troupe_tool("y")' : source;
    expect(rewriteShorthand(source)).toBe(expected);
  });
});

describe('imports in workflow code', () => {
  it('are found as code, not in strings or as property names', () => {
    expect(findImport("import('fs')")).toMatch(/uses import/);
    expect(findImport('import fs from "fs"')).toMatch(/uses import/);
    expect(findImport('import.meta.url')).toMatch(/uses import/);
    expect(findImport('"import(\'fs\')"')).toBeNull();
    expect(findImport('x.import(1); ({ import: 1 })')).toBeNull();
  });
});

describe('the tokenizer', () => {
  it('tells regexes from divisions and keeps nested template substitutions together', () => {
    const types = (s: string) =>
      tokenize(s)
        .filter((t) => t.type !== 'space')
        .map((t) => `${t.type}:${t.text}`);
    expect(types('a / b / c')).toEqual(['ident:a', 'punct:/', 'ident:b', 'punct:/', 'ident:c']);
    expect(types('return /a}b/g')).toEqual(['ident:return', 'regex:/a}b/g']);
    expect(types('`a${ {b: `c${d}`}.b }e`')).toEqual(['template:`a${', 'punct:{', 'ident:b', 'punct::', 'template:`c${', 'ident:d', 'template:}`', 'punct:}', 'punct:.', 'ident:b', 'template:}e`']);
  });

  it('never throws and covers every character of any input', () => {
    for (const source of ['`${', '"\\', '/*', '/[/', '}}}', '`a${b', "'\n'", '\u2028x']) {
      const tokens = tokenize(source);
      expect(tokens.map((t) => t.text).join('')).toBe(source);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { functionSource, withoutTrailingSemicolons } from '../../../src/workflow/sandbox/unwrap.js';

describe('function strings (seed 000 writes scripts as "() => { ... }")', () => {
  it('arrows become regular functions so that `this` can be bound', () => {
    expect(functionSource('() => { this.common_data.x = 1; }')).toBe('function () { this.common_data.x = 1; }');
    expect(functionSource('executionContext => { this.a = executionContext; }')).toBe('function (executionContext) { this.a = executionContext; }');
    expect(functionSource('(a, b = {}) => a.x')).toBe('function (a, b = {}) { return (a.x\n); }');
    expect(functionSource('  () => { return 1 };  ')).toBe('function () { return 1 }');
  });

  it('function expressions are kept, parenthesised ones unwrapped', () => {
    expect(functionSource('function () { return this.x; }')).toBe('function () { return this.x; }');
    expect(functionSource('function named(a = {}) { return a; }')).toBe('function named(a = {}) { return a; }');
    expect(functionSource('(function () { return 1; })')).toBe('function () { return 1; }');
    expect(functionSource('(() => { return 1; })')).toBe('function () { return 1; }');
  });

  it('anything else is not a function string', () => {
    for (const source of ['common_data.x', 'this.a = 1; this.b = 2;', '(() => 1)()', '() => { a } ; b()', 'function f() {} f()', 'async () => 1', '(a)', 'x => ', '() => { "}" ']) {
      expect(functionSource(source)).toBeNull();
    }
  });

  it('a trailing semicolon does not stop an expression', () => {
    expect(withoutTrailingSemicolons('common_data.x;; ')).toBe('common_data.x');
    expect(withoutTrailingSemicolons("'a;'")).toBe("'a;'");
    expect(withoutTrailingSemicolons(';')).toBe('');
  });
});

import { describe, expect, it } from 'vitest';
import { MAX_CONFIG_NESTING, parseConfigJson, tooDeepAt } from '../../src/config/config-json.js';
import type { ConfigIssue } from '../../src/config/issues.js';

const nested = (levels: number, key = 'a') => `${`{"${key}":`.repeat(levels)}1${'}'.repeat(levels)}`;

describe('config JSON nesting', () => {
  it('allows 100 levels, refuses 101 and names where it went too deep', () => {
    expect(tooDeepAt(JSON.parse(nested(MAX_CONFIG_NESTING)))).toBeNull();
    expect(tooDeepAt(JSON.parse(nested(MAX_CONFIG_NESTING + 1)))).toBe('a.a.a.a…');
    expect(tooDeepAt({ variables: { x: [[JSON.parse(nested(200))]] } })).toBe('variables.x[0][0]…');
    expect(tooDeepAt(JSON.parse(`[${nested(100)}]`))).toBe('[0].a.a.a…');
    expect(tooDeepAt({ states: [{ name: 'a' }], note: 'x' })).toBeNull();
  });

  it('a million levels are walked without overflowing the stack', () => {
    const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
    const issues: ConfigIssue[] = [];
    expect(parseConfigJson(deep, 'w.json', issues)).toBeNull();
    expect(issues).toEqual([{ file: 'w.json', field: '[0][0][0][0]…', problem: 'nests deeper than 100 levels of objects and arrays', fix: 'keep the data flatter' }]);
  });

  it('text that is not JSON is one issue; good JSON comes back', () => {
    const issues: ConfigIssue[] = [];
    expect(parseConfigJson('{"a": ', 'w.json', issues)).toBeNull();
    expect(issues[0]).toMatchObject({ file: 'w.json', field: '', problem: expect.stringMatching(/^not valid JSON/) });
    expect(parseConfigJson('{"a": [1]}', 'w.json', [])).toEqual({ value: { a: [1] } });
  });
});

import { describe, expect, it } from 'vitest';
import { jsonDepth } from '../../../src/workflow/sandbox/json-depth.js';

describe('the nesting depth of a JSON text', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonDepth('1')).toBe(0);
    expect(jsonDepth('{"a":[{"b":[]}]}')).toBe(4);
    expect(jsonDepth('{"a":"[[[{{{\\"]]]"}')).toBe(1);
    expect(jsonDepth(`${'['.repeat(500)}${']'.repeat(500)}`)).toBe(500);
  });
});

import { describe, expect, it } from 'vitest';
import { cjkRun, letterRun, longLine } from '../fixtures/hostile-b/inputs.js';
import { spyOnTokenizer } from '../helpers/tokenizer-spy.js';

// Records what reaches the tokenizer: its BPE is quadratic in one pre-token, so no long run may reach it whole.
const { seen } = spyOnTokenizer();

const { countTokens, MAX_COUNTED_CHARS } = await import('../../src/memory/tokens.js');

function longestRun(pieces: string[]): number {
  return Math.max(0, ...pieces.flatMap((p) => (p.match(/\S+/gu) ?? []).map((w) => [...w].length)));
}

describe('token counting in bounded time (issue 10, item 7)', () => {
  it('never hands the tokenizer a run without spaces longer than 256 characters (40k CJK brief)', () => {
    seen.length = 0;
    const text = cjkRun();
    const n = countTokens(text);
    expect(longestRun(seen)).toBeLessThanOrEqual(256);
    expect(seen.join('')).toBe(text);
    // CJK characters are about two o200k tokens each.
    expect(n).toBeGreaterThan(text.length * 1.5);
    expect(n).toBeLessThan(text.length * 2.5);
  });

  it('cuts a run of one letter (base64-like) the same way', () => {
    seen.length = 0;
    expect(countTokens(letterRun())).toBeGreaterThan(0);
    expect(longestRun(seen)).toBeLessThanOrEqual(256);
  });

  it('tokenizes at most MAX_COUNTED_CHARS of a 10 MB line and extrapolates the rest', () => {
    seen.length = 0;
    const text = longLine();
    const n = countTokens(text);
    expect(seen.reduce((k, p) => k + p.length, 0)).toBeLessThanOrEqual(MAX_COUNTED_CHARS);
    const sample = longLine(MAX_COUNTED_CHARS);
    const expected = (countTokens(sample) * text.length) / sample.length;
    expect(Math.abs(n - expected) / expected).toBeLessThan(0.01);
  });

  it('counts ordinary text exactly as the tokenizer does, in one call', () => {
    seen.length = 0;
    const text = 'The keeper trims the lamp and logs the tide before the fog rolls in.';
    expect(countTokens(text)).toBe(15);
    // Only its pre-tokens not seen before reach the tokenizer (issue 23: counts are cached per pre-token), and none again.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((p) => text.includes(p) && !/\s\S+\s/u.test(p))).toBe(true);
    seen.length = 0;
    expect(countTokens(text)).toBe(15);
    expect(seen).toEqual([]);
    expect(countTokens('')).toBe(0);
  });
});

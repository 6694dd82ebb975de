import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { cachingCounter, countTokens, countTokensWith, MAX_COUNTED_CHARS } from '../../src/memory/tokens.js';

const gpt = createRequire(import.meta.url)('gpt-tokenizer') as typeof import('gpt-tokenizer');
// The reference: gpt-tokenizer on the whole text, special tokens' text counted as plain text (as in a message).
const plain = new Set<string>();
const real = (text: string): number => gpt.countTokens(text, { disallowedSpecial: plain });

// Pieces that stress o200k's pre-tokenizer: case changes, contractions, digits, newline and space runs,
// CJK, emoji, lone surrogate halves, control characters, combining marks, "/" after punctuation, special tokens.
const PIECES = [
  'a',
  'Z',
  'keeper',
  'HelloWorld',
  "'s",
  "'S",
  "'ll",
  "'Re",
  "don't",
  '’s',
  '0',
  '7',
  '1234567',
  ' ',
  '  ',
  '\t',
  '\n',
  '\n\n\n',
  '\r\n',
  ' \n ',
  '灯台守',
  'ひらがな',
  '한국어',
  '🎉',
  '👩‍👩‍👧',
  '\ud800',
  '\udc00',
  '\u0000',
  '\u0007',
  '\u001b[31m',
  'e\u0301',
  'Ω',
  '.',
  '...',
  '/',
  './',
  '!\n',
  '?/',
  '"',
  '“',
  '-',
  '#',
  '<|endoftext|>',
  '<|fim_prefix|>',
  '\u00a0',
  '\u3000',
  '\u2028',
  'ß',
  'İ',
  'x'.repeat(80),
];

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

function randomText(rand: () => number, pieces: number): string {
  let text = '';
  for (let i = 0; i < pieces; i++) text += PIECES[Math.floor(rand() * PIECES.length)]!;
  return text;
}

describe('per-pre-token count cache (issue 23, item 6)', () => {
  it('counts random hostile texts exactly as gpt-tokenizer does on the whole text, cold and warm', () => {
    const rand = seeded(23);
    const cache = new Map<string, number>();
    const cached = cachingCounter(real, cache);
    for (let i = 0; i < 1500; i++) {
      const text = randomText(rand, 1 + Math.floor(rand() * 40));
      expect(cached(text), JSON.stringify(text)).toBe(real(text));
    }
    // The second pass reads the cache only (every pre-token was seen): still exact.
    const again = seeded(23);
    for (let i = 0; i < 300; i++) {
      const text = randomText(again, 1 + Math.floor(again() * 40));
      expect(cached(text), JSON.stringify(text)).toBe(real(text));
    }
    expect(cache.size).toBeGreaterThan(100);
  });

  it('keeps countTokens what the chunked count of the whole gives, for long runs and 64k+ texts too', () => {
    const rand = seeded(7);
    const texts = [
      '灯'.repeat(3000),
      'a'.repeat(5000),
      `${'x'.repeat(300)} ${'🎉'.repeat(300)}`,
      'word '.repeat(20_000),
      `${'\n'.repeat(500)}.${'\n'.repeat(500)}/`,
      randomText(rand, 4000),
      randomText(rand, 9000),
    ];
    expect(texts.some((t) => t.length > MAX_COUNTED_CHARS)).toBe(true);
    for (const text of texts) expect(countTokens(text), text.slice(0, 40)).toBe(countTokensWith(real, text));
  });

  it('counts numbers, contractions and newline runs exactly through the shared cache', () => {
    const texts = ["It's the keeper's lamp; they'll light it at 2130.", 'Budget: 2,000,000 (12345678)', 'a\n\n\nb\r\n\r\nc  \n  d', 'done.\n/next', '<|endoftext|> is plain text here'];
    for (const text of texts) {
      expect(countTokens(text), text).toBe(real(text));
      expect(countTokens(text), text).toBe(real(text));
    }
  });

  it('a cache holding a wrong count gives a wrong total (the sum really comes from the cache)', () => {
    const cache = new Map<string, number>([[' keeper', 5]]);
    expect(cachingCounter(real, cache)('the keeper')).toBe(real('the') + 5);
  });

  it('bounds what it keeps: long pre-tokens are counted but not cached', () => {
    const cache = new Map<string, number>();
    const long = 'y'.repeat(200);
    expect(cachingCounter(real, cache)(long)).toBe(real(long));
    expect(cache.has(long)).toBe(false);
  });
});

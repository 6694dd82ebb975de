import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Records every text that reaches gpt-tokenizer's counter from here on: troupe loads the tokenizer's
 * CommonJS build (src/memory/tokens.ts), which vi.mock does not reach, so the cached module's exports are
 * swapped for a copy whose counter records. Call before troupe's tokenizer loads; `real` counts unrecorded.
 */
export function spyOnTokenizer(): { seen: string[]; real: (text: string) => number } {
  const seen: string[] = [];
  const real = require('gpt-tokenizer') as typeof import('gpt-tokenizer');
  const cached = require.cache[require.resolve('gpt-tokenizer')]!;
  cached.exports = { ...real, countTokens: (text: string) => (seen.push(text), real.countTokens(text)) };
  return { seen, real: real.countTokens };
}

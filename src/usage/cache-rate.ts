import { formatCount as n } from './format.js';

/** What the prompt-cache hit rate is computed from. */
export interface CacheCounts {
  /** Cached prompt tokens. */
  cachedTokens: number;
  /** Calls whose server reported its cached tokens (0 when it never says). */
  cacheReported: number;
  /** Prompt tokens of those calls. */
  cacheablePromptTokens: number;
}

/** One group's hit rate, short ("83% cached"), or null when its server never reported cached tokens. */
export function cacheShare(c: CacheCounts): string | null {
  if (c.cacheReported === 0) return null;
  const rate = c.cacheablePromptTokens === 0 ? 0 : (100 * c.cachedTokens) / c.cacheablePromptTokens;
  return `${rate.toFixed(rate > 0 && rate < 10 ? 1 : 0)}% cached`;
}

/** The prompt-cache hit rate as a line, or null when the server never reported cached tokens. */
export function cacheHitLine(c: CacheCounts): string | null {
  if (c.cacheReported === 0) return null;
  const rate = c.cacheablePromptTokens === 0 ? 0 : (100 * c.cachedTokens) / c.cacheablePromptTokens;
  return `prompt cache: ${rate.toFixed(rate > 0 && rate < 10 ? 1 : 0)}% hit (${n(c.cachedTokens)} of ${n(c.cacheablePromptTokens)} prompt tokens served from cache)`;
}

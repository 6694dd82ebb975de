import type { Usage } from '../llm/chat-model.js';

/** The sum of several calls' usage; null when no call reported any, cached tokens only when some call reported them. */
export function sumUsage(usages: readonly (Usage | null)[]): Usage | null {
  const reported = usages.filter((u): u is Usage => u !== null);
  if (reported.length === 0) return null;
  const cached = reported.filter((u) => u.cachedTokens !== undefined);
  return {
    promptTokens: reported.reduce((n, u) => n + u.promptTokens, 0),
    completionTokens: reported.reduce((n, u) => n + u.completionTokens, 0),
    ...(cached.length ? { cachedTokens: cached.reduce((n, u) => n + (u.cachedTokens ?? 0), 0) } : {}),
  };
}

import type { TroupeEventMap } from '../engine/event-map.js';

/** Tokens and cost per persona (or "summary" for memory calls). */
export interface UsageLine {
  who: string;
  calls: number;
  tokens: number;
  cost: number | null;
}

/** Running totals built from `usage` events; cost stays null while no server reports one. */
export interface UsageTotals {
  tokens: number;
  cost: number | null;
  calls: number;
  byPersona: UsageLine[];
  /** Prompt tokens served from a provider's prompt cache, over the calls that reported caching. */
  cachedTokens?: number;
  /** Calls whose server reported caching at all. */
  cacheReported?: number;
  /** Prompt tokens of those calls (what could have been cached). */
  cacheablePromptTokens?: number;
}

/** Totals before any call. */
export const NO_USAGE: UsageTotals = { tokens: 0, cost: null, calls: 0, byPersona: [] };

const add = (a: number | null, b: number | null): number | null => (b === null ? a : (a ?? 0) + b);

/** Adds one `usage` event to the totals (pure). */
export function addUsage(totals: UsageTotals, e: TroupeEventMap['usage']): UsageTotals {
  const tokens = e.prompt_tokens + e.completion_tokens;
  const who = e.persona ?? 'summary';
  const found = totals.byPersona.some((l) => l.who === who);
  const byPersona = found
    ? totals.byPersona.map((l) => (l.who === who ? { who, calls: l.calls + 1, tokens: l.tokens + tokens, cost: add(l.cost, e.cost) } : l))
    : [...totals.byPersona, { who, calls: 1, tokens, cost: e.cost }];
  const cache = e.cached_tokens === undefined
    ? {}
    : { cachedTokens: (totals.cachedTokens ?? 0) + e.cached_tokens, cacheReported: (totals.cacheReported ?? 0) + 1, cacheablePromptTokens: (totals.cacheablePromptTokens ?? 0) + e.prompt_tokens };
  return { ...totals, tokens: totals.tokens + tokens, cost: add(totals.cost, e.cost), calls: totals.calls + 1, byPersona, ...cache };
}

/** What a free model costs, in every view (footer, !cost, the end-of-run summary). */
export const FREE_COST = 'free (demo model)';
/** What an unpriced model costs, in every view. */
export const UNKNOWN_COST = 'unknown (no price)';

/** A cost for display, worded the same everywhere: "$0.0123", "free (demo model)", or "unknown (no price)". */
export function formatCost(cost: number | null, free = false): string {
  if (free) return FREE_COST;
  return cost === null ? UNKNOWN_COST : `$${cost.toFixed(cost < 1 ? 4 : 2)}`;
}

/** A token count for display: 1234 -> "1.2k". */
export function formatTokens(tokens: number): string {
  return tokens < 1000 ? String(tokens) : `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
}

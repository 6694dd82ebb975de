import { z } from 'zod';
import { tokensOf } from './format.js';
import { usageState, type UsageMeter, type UsageState, type UsageTotals } from './usage-meter.js';
import { lazySchema } from '../config/lazy-schema.js';

/**
 * A session's usage as every view reads it (the footer, `!cost`, the run summary, the API): the meter's
 * totals, plus what wording them needs. One source: views read this, they never count `usage` events.
 */
export interface SessionUsage extends UsageState {
  /** The price table's currency. */
  currency: string;
  /** Where the prices come from (named when a model has none). */
  priceSource: string;
  /** The calls cost nothing (the offline demo model). */
  free: boolean;
}

/** A copy of a meter's totals, read now. */
export function sessionUsage(meter: UsageMeter, options: { free?: boolean } = {}): SessionUsage {
  return { ...usageState(meter), currency: meter.prices.currency, priceSource: meter.prices.source, free: options.free ?? false };
}

const ZERO: UsageTotals = { calls: 0, promptTokens: 0, completionTokens: 0, cost: 0, unpricedCalls: 0, cachedTokens: 0, cacheReported: 0, cacheablePromptTokens: 0 };

const UsageTotalsViewSchema = lazySchema(() =>
  z.object({
    calls: z.number(),
    tokens: z.number().describe('Prompt plus completion tokens'),
    promptTokens: z.number(),
    completionTokens: z.number(),
    cost: z.number().nullable().describe("Known cost (in the price table's currency); null while no call was priced"),
    unpricedCalls: z.number().describe('Calls whose model has no price (their tokens count, their cost is unknown)'),
    cachedTokens: z.number().describe('Prompt tokens the server served from its prompt cache'),
  }),
);

/** A session's usage in the API: the meter's totals (the same figures as !cost and the run summary), and each persona's. */
export const UsageViewSchema = lazySchema(() =>
  UsageTotalsViewSchema.extend({
    byPersona: z.record(z.string(), UsageTotalsViewSchema).describe('By persona id; memory summaries under "(memory)"'),
    free: z.boolean().describe('The calls cost nothing (the offline demo model): cost stays null, and is not unknown'),
  }),
);

/** A group's totals as the API shows them: calls, tokens, and the cost (null while no call was priced). */
export type UsageTotalsView = z.infer<typeof UsageTotalsViewSchema>;

/** A session's usage as the API shows it. */
export type UsageView = z.infer<typeof UsageViewSchema>;

function totalsView(t: UsageTotals): UsageTotalsView {
  return {
    calls: t.calls,
    tokens: tokensOf(t),
    promptTokens: t.promptTokens,
    completionTokens: t.completionTokens,
    cost: t.calls > t.unpricedCalls ? t.cost : null,
    unpricedCalls: t.unpricedCalls,
    cachedTokens: t.cachedTokens,
  };
}

/** A session's usage as the API shows it: the session's totals and each persona's (memory calls under "(memory)"), and whether they cost nothing. */
export function usageView(state: UsageState | null, free = false): UsageView {
  const byPersona = Object.fromEntries(Object.entries(state?.byPersona ?? {}).map(([k, v]) => [k, totalsView(v)]));
  return { ...totalsView(state?.session ?? ZERO), byPersona, free };
}

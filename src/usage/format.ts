import type { UsageTotals } from './usage-meter.js';

/** What a free model costs, in every view (footer, !cost, the run summary, the API's page, troupe sessions). */
export const FREE_COST = 'free (demo model)';
/** What an unpriced model costs, in every view. */
export const UNKNOWN_COST = 'unknown (no price)';

/** A count with thousands separators: 200518 -> "200,518". */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** A token count for display: 1234 -> "1.2k". */
export function formatTokens(tokens: number): string {
  return tokens < 1000 ? String(tokens) : `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
}

/** An amount of money: "$0.0123", "$1.50", "EUR 0.0040"; tiny amounts keep six decimals so they never read as zero. */
export function formatMoney(value: number, currency = 'USD'): string {
  const digits = value >= 1 ? 2 : value >= 0.0001 || value === 0 ? 4 : 6;
  return `${currency === 'USD' ? '$' : `${currency} `}${value.toFixed(digits)}`;
}

/** How a cost is read: in which currency, and whether the calls cost nothing (the offline demo). */
export interface CostContext {
  currency?: string;
  free?: boolean;
}

/** The cost of some calls, worded the same everywhere: "$0.0123", "$0.01 + unpriced", "free (demo model)" or "unknown (no price)". */
export function formatCost(t: Pick<UsageTotals, 'calls' | 'cost' | 'unpricedCalls'>, context: CostContext = {}): string {
  if (context.free) return FREE_COST;
  if (t.calls === t.unpricedCalls) return UNKNOWN_COST;
  return `${formatMoney(t.cost, context.currency)}${t.unpricedCalls > 0 ? ' + unpriced' : ''}`;
}

/** Prompt plus completion tokens. */
export function tokensOf(t: Pick<UsageTotals, 'promptTokens' | 'completionTokens'>): number {
  return t.promptTokens + t.completionTokens;
}

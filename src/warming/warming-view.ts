import type { WarmingSettings } from '../config/team-schema.js';
import { formatCount as n, formatMoney } from '../usage/format.js';
import type { WarmingTotals } from './ledger.js';
import type { Prediction } from './predict.js';

/** A session's state warming as views read it: its mode, the latest prediction, and what warming requests used. */
export interface WarmingView {
  mode: WarmingSettings['mode'];
  latest: { turnId: string; persona: string; predictions: Prediction[] } | null;
  totals: WarmingTotals;
}

/** The predictions as one short text, best first: "CEO 62% · CFO 20% · Lead Engineer 9%". */
export function predictionText(predictions: readonly Prediction[], name: (id: string) => string): string {
  return predictions.map((p) => `${name(p.persona)} ${Math.round(100 * p.confidence)}%`).join(' · ');
}

/** `!status`'s line: who is likely next while `inFlight` (a turn id) answers; null when nothing was predicted for it. */
export function predictionLine(view: WarmingView | null, inFlight: string | undefined, name: (id: string) => string): string | null {
  const latest = view?.latest;
  if (!latest || latest.turnId !== inFlight || latest.predictions.length === 0) return null;
  return `likely next (predicted): ${predictionText(latest.predictions, name)}`;
}

/** `!cost`'s line for cache-warming requests, counted apart from the session's own calls (null: none sent). */
export function warmingCostLine(view: WarmingView | null, options: { free?: boolean; currency?: string } = {}): string | null {
  const t = view?.totals;
  if (!t || t.requests === 0) return null;
  const cost = options.free ? 'free (demo model)' : t.unpriced === t.requests ? 'unknown (no price)' : `${formatMoney(t.cost, options.currency)}${t.unpriced > 0 ? ' + unpriced' : ''}`;
  const stopped = t.aborted + t.failed > 0 ? `, ${t.aborted} aborted, ${t.failed} failed` : '';
  return `cache warming (apart): ${n(t.requests)} request(s)${stopped}, ${n(t.promptTokens)} prompt tokens (${n(t.cachedTokens)} cached), cost ${cost}`;
}

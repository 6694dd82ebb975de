import type { UsageMeter, UsageTotals } from './usage-meter.js';
import { cacheHitLine } from './cache-rate.js';
import { FREE_COST, UNKNOWN_COST } from '../commands/usage-meter.js';

const n = (value: number) => value.toLocaleString('en-US');

function money(value: number, currency: string): string {
  const digits = value >= 1 ? 2 : value >= 0.0001 || value === 0 ? 4 : 6;
  return `${currency === 'USD' ? '$' : `${currency} `}${value.toFixed(digits)}`;
}

function costOf(t: UsageTotals, currency: string, free: boolean): string {
  if (free) return `cost ${FREE_COST}`;
  if (t.unpricedCalls === t.calls) return `cost ${UNKNOWN_COST}`;
  return `cost ${money(t.cost, currency)}${t.unpricedCalls > 0 ? ' + unpriced' : ''}`;
}

/** The end-of-run usage summary: tokens per persona, the total, and the cost (free for the demo model) or which models have no price. */
export function formatUsageSummary(meter: UsageMeter, options: { free?: boolean } = {}): string[] {
  const free = options.free ?? false;
  const { session } = meter;
  const currency = meter.prices.currency;
  if (session.calls === 0 && meter.callsWithoutUsage === 0) return ['usage: no model calls'];
  const lines = [
    `usage: ${n(session.calls)} call(s), ${n(session.promptTokens + session.completionTokens)} tokens (${n(session.promptTokens)} prompt + ${n(session.completionTokens)} completion), ${costOf(session, currency, free)}`,
  ];
  const cache = cacheHitLine(session);
  if (cache) lines.push(`  ${cache}`);
  const width = Math.max(0, ...[...meter.byPersona.keys()].map((k) => k.length));
  for (const [persona, t] of meter.byPersona) {
    lines.push(`  ${persona.padEnd(width)}  ${n(t.promptTokens + t.completionTokens).padStart(9)} tokens  ${String(t.calls).padStart(3)} call(s)  ${costOf(t, currency, free)}`);
  }
  for (const model of free ? [] : meter.unpricedModels) {
    lines.push(`  no price for model ${model} — add it to ${meter.prices.source} (or a file named by TROUPE_PRICES) to see its cost`);
  }
  if (meter.callsWithoutUsage > 0) lines.push(`  ${meter.callsWithoutUsage} call(s) reported no token usage (the server sent none)`);
  return lines;
}

import type { UsageTotals } from './usage-meter.js';
import { cacheHitLine, cacheShare } from './cache-rate.js';
import { formatCost, formatCount as n, tokensOf } from './format.js';
import type { SessionUsage } from './session-usage.js';

/** The end-of-run usage summary: tokens per persona (each named by `name`), the total, and the cost (free for the demo model) or which models have no price. */
export function formatUsageSummary(usage: SessionUsage, name: (key: string) => string = (key) => key): string[] {
  const { session, free } = usage;
  const cost = (t: UsageTotals) => `cost ${formatCost(t, usage)}`;
  if (session.calls === 0 && usage.callsWithoutUsage === 0) return ['usage: no model calls'];
  const lines = [`usage: ${n(session.calls)} call(s), ${n(tokensOf(session))} tokens (${n(session.promptTokens)} prompt + ${n(session.completionTokens)} completion), ${cost(session)}`];
  const cache = cacheHitLine(session);
  if (cache) lines.push(`  ${cache}`);
  const personas = Object.entries(usage.byPersona).map(([key, t]) => [name(key), t] as const);
  const width = Math.max(0, ...personas.map(([k]) => k.length));
  for (const [persona, t] of personas) {
    const cached = cacheShare(t);
    lines.push(`  ${persona.padEnd(width)}  ${n(tokensOf(t)).padStart(9)} tokens  ${String(t.calls).padStart(3)} call(s)  ${cost(t)}${cached ? `  ${cached}` : ''}`);
  }
  for (const model of free ? [] : usage.unpricedModels) lines.push(`  ${noPriceLine(model, usage.priceSource)}`);
  if (usage.callsWithoutUsage > 0) lines.push(`  ${usage.callsWithoutUsage} call(s) reported no token usage (the server sent none)`);
  return lines;
}

/** What to do about a model without a price, worded once for the summary and `!cost`. */
export function noPriceLine(model: string, priceSource: string): string {
  return `no price for model ${model} — add it to ${priceSource} (or a file named by TROUPE_PRICES) to see its cost`;
}

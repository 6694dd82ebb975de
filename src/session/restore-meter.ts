import type { TroupeEvent } from '../engine/event-map.js';
import { restoreUsage, type UsageMeter } from '../usage/usage-meter.js';

/** What a reopened session's usage is restored from: the checkpoint's totals, the journal after it, and (when needed) the whole journal. */
export interface UsageSources {
  /** The checkpoint's `usage` slot (null: nothing metered yet). */
  saved: unknown;
  /** Events of the journal records after the checkpoint. */
  tail: readonly TroupeEvent[];
  /** Every stored event, oldest first (read only when the checkpoint's totals are damaged). */
  all: () => Promise<TroupeEvent[]>;
  /** Where the checkpoint is, for the note. */
  location: string;
}

function replay(meter: UsageMeter, events: readonly TroupeEvent[]): number {
  let n = 0;
  for (const e of events) {
    if (e.type !== 'usage') continue;
    meter.record(e.persona, e.model, { promptTokens: e.prompt_tokens, completionTokens: e.completion_tokens, ...(e.cached_tokens !== undefined ? { cachedTokens: e.cached_tokens } : {}) }, e.model);
    n += 1;
  }
  return n;
}

/**
 * Restores a reopened session's usage totals (so budgets continue where they were): the checkpoint's
 * totals plus the usage events after it. The totals are a cache of the journal's usage events, so when
 * the checkpoint's slot is damaged they are rebuilt from the whole journal; returns a note saying so, or null.
 */
export async function restoreMeter(meter: UsageMeter, sources: UsageSources): Promise<string | null> {
  const problem = sources.saved === null || sources.saved === undefined ? null : restoreUsage(meter, sources.saved);
  if (problem === null) {
    replay(meter, sources.tail);
    return null;
  }
  const rebuilt = replay(meter, await sources.all());
  return `${sources.location}: checkpoint.${problem} — the usage totals were rebuilt from the journal's ${rebuilt} usage event(s), so budgets continue from there`;
}

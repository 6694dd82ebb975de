import type { WarmingSettings } from '../config/team-schema.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { Usage } from '../llm/chat-model.js';
import type { PriceTable } from '../usage/price-table.js';

/** What a session's cache-warming requests used, apart from its own calls. */
export interface WarmingTotals {
  /** Requests sent (done, aborted or failed). */
  requests: number;
  aborted: number;
  failed: number;
  /** Prompt tokens charged against the budget: the server's count, or troupe's estimate where larger or where the server never said. */
  promptTokens: number;
  /** Of the server-reported prompt tokens, those it served from its cache. */
  cachedTokens: number;
  completionTokens: number;
  /** Sum over the priced requests. */
  cost: number;
  /** Requests whose model has no price. */
  unpriced: number;
}

/** One finished warming request, as recorded. */
export interface WarmingRecord {
  /** Prompt tokens charged for it. */
  promptTokens: number;
  cost: number | null;
  totals: WarmingTotals;
}

/**
 * Counts what cache warming uses and keeps it within its budget: at most `max_tokens` prompt tokens in
 * all, and at most `max_share` prompt tokens per prompt token of the session's own calls. A request is
 * only sent when its estimated prompt tokens fit, and each is charged at least its estimate, so the
 * charged total never passes the budget unless a server counts more than troupe estimated.
 */
export class WarmingLedger {
  readonly totals: WarmingTotals = { requests: 0, aborted: 0, failed: 0, promptTokens: 0, cachedTokens: 0, completionTokens: 0, cost: 0, unpriced: 0 };

  constructor(
    private readonly settings: Pick<WarmingSettings, 'max_share' | 'max_tokens'>,
    private readonly prices: PriceTable,
  ) {}

  /** Why a request of about `estimate` prompt tokens does not fit now (with the session's own calls at `ownPromptTokens`), or null when it fits. */
  refuses(estimate: number, ownPromptTokens: number): 'max_tokens' | 'max_share' | null {
    const after = this.totals.promptTokens + estimate;
    if (this.settings.max_tokens !== null && after > this.settings.max_tokens) return 'max_tokens';
    return after <= this.settings.max_share * ownPromptTokens ? null : 'max_share';
  }

  /** Records a finished request (usage null: the server never said; it is charged its estimate). */
  record(model: string, usage: Usage | null, estimate: number, status: 'done' | 'aborted' | 'failed'): WarmingRecord {
    const t = this.totals;
    const promptTokens = Math.max(estimate, usage?.promptTokens ?? 0);
    const cost = usage ? this.prices.cost(model, usage) : null;
    t.requests += 1;
    if (status === 'aborted') t.aborted += 1;
    if (status === 'failed') t.failed += 1;
    t.promptTokens += promptTokens;
    t.cachedTokens += usage?.cachedTokens ?? 0;
    t.completionTokens += usage?.completionTokens ?? 0;
    if (cost === null) t.unpriced += 1;
    else t.cost += cost;
    return { promptTokens, cost, totals: { ...t } };
  }

  /** Known warming cost so far, or null when nothing was priced. */
  get totalCost(): number | null {
    return this.totals.requests > this.totals.unpriced ? this.totals.cost : null;
  }

  /** Picks the totals up from a reopened session's newest `warming` event (its running totals). */
  restore(events: readonly TroupeEvent[]): void {
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (e.type !== 'warming') continue;
      this.totals.requests = e.total_requests;
      this.totals.promptTokens = e.total_prompt_tokens;
      this.totals.cost = e.total_cost ?? 0;
      this.totals.unpriced = e.total_cost === null ? e.total_requests : 0;
      return;
    }
  }
}

import { z } from 'zod';
import type { Usage } from '../llm/chat-model.js';
import { PriceTable } from './price-table.js';
import { lazySchema } from '../config/lazy-schema.js';

/** Accumulated usage of a group of calls (a persona, a model, the session). */
export interface UsageTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Sum over the calls whose model has a price. */
  cost: number;
  /** Calls whose model has no price (their tokens count, their cost is unknown). */
  unpricedCalls: number;
  /** Prompt tokens the server served from its prompt cache. */
  cachedTokens: number;
  /** Calls whose server said how many prompt tokens were cached (0 included): the base of the hit rate. */
  cacheReported: number;
  /** Prompt tokens of those calls. */
  cacheablePromptTokens: number;
}

/** The key the meter keeps memory (summariser) calls under, beside the persona ids. */
export const MEMORY_KEY = '(memory)';

/** One metered call: what it used and cost, and the session totals after it. */
export interface UsageRecord {
  persona: string | null;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** Cached prompt tokens, when the server reported them. */
  cachedTokens?: number;
  /** Null when the model has no price. */
  cost: number | null;
  totalTokens: number;
  /** Null while no call has been priced. */
  totalCost: number | null;
}

function zero(): UsageTotals {
  return { calls: 0, promptTokens: 0, completionTokens: 0, cost: 0, unpricedCalls: 0, cachedTokens: 0, cacheReported: 0, cacheablePromptTokens: 0 };
}

function add(t: UsageTotals, usage: Usage, cost: number | null): void {
  t.calls += 1;
  t.promptTokens += usage.promptTokens;
  t.completionTokens += usage.completionTokens;
  if (usage.cachedTokens !== undefined) {
    t.cachedTokens += usage.cachedTokens;
    t.cacheReported += 1;
    t.cacheablePromptTokens += usage.promptTokens;
  }
  if (cost === null) t.unpricedCalls += 1;
  else t.cost += cost;
}

/** Accumulates token usage and cost per call, persona, model and session. */
export class UsageMeter {
  readonly session: UsageTotals = zero();
  readonly byPersona = new Map<string, UsageTotals>();
  readonly byModel = new Map<string, UsageTotals>();
  /** Models used that have no price in the table. */
  readonly unpricedModels = new Set<string>();
  /** Calls whose server reported no usage at all. */
  callsWithoutUsage = 0;
  private readonly listeners: ((record: UsageRecord) => void)[] = [];

  constructor(readonly prices: PriceTable = PriceTable.empty()) {}

  /** Calls `listener` after each metered call. */
  onRecord(listener: (record: UsageRecord) => void): () => void {
    this.listeners.push(listener);
    return () => this.listeners.splice(this.listeners.indexOf(listener) >>> 0, 1);
  }

  /** Tokens used in the session so far. */
  get totalTokens(): number {
    return this.session.promptTokens + this.session.completionTokens;
  }

  /** Known cost so far, or null when no call was priced. */
  get totalCost(): number | null {
    return this.session.calls > this.session.unpricedCalls ? this.session.cost : null;
  }

  /**
   * Records one call's usage (null: the server sent none) under the model id troupe asked for;
   * the id the server reports (e.g. a dated snapshot) is tried for a price when that one has none.
   */
  record(persona: string | null, model: string, usage: Usage | null, servedModel?: string): UsageRecord | null {
    if (!usage) {
      this.callsWithoutUsage += 1;
      return null;
    }
    const cost = this.prices.cost(model, usage) ?? (servedModel ? this.prices.cost(servedModel, usage) : null);
    if (cost === null) this.unpricedModels.add(model);
    add(this.session, usage, cost);
    const key = persona ?? MEMORY_KEY;
    if (!this.byPersona.has(key)) this.byPersona.set(key, zero());
    add(this.byPersona.get(key)!, usage, cost);
    if (!this.byModel.has(model)) this.byModel.set(model, zero());
    add(this.byModel.get(model)!, usage, cost);
    const record: UsageRecord = {
      persona,
      model,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      ...(usage.cachedTokens !== undefined ? { cachedTokens: usage.cachedTokens } : {}),
      cost,
      totalTokens: this.totalTokens,
      totalCost: this.totalCost,
    };
    for (const listener of [...this.listeners]) listener(record);
    return record;
  }
}

/** Plain-data form of a meter's totals (stored in the session file's `usage` slot). */
export interface UsageState {
  session: UsageTotals;
  byPersona: Record<string, UsageTotals>;
  byModel: Record<string, UsageTotals>;
  unpricedModels: string[];
  callsWithoutUsage: number;
}

/** Saves a meter's totals as plain data. */
export function usageState(meter: UsageMeter): UsageState {
  return {
    session: { ...meter.session },
    byPersona: Object.fromEntries([...meter.byPersona].map(([k, v]) => [k, { ...v }])),
    byModel: Object.fromEntries([...meter.byModel].map(([k, v]) => [k, { ...v }])),
    unpricedModels: [...meter.unpricedModels],
    callsWithoutUsage: meter.callsWithoutUsage,
  };
}

// Totals saved before cache counting existed restore with zero cached tokens.
const totalsSchema = (count: z.ZodNumber) =>
  z.object({
    calls: count,
    promptTokens: count,
    completionTokens: count,
    cost: z.number().min(0),
    unpricedCalls: count,
    cachedTokens: count.default(0),
    cacheReported: count.default(0),
    cacheablePromptTokens: count.default(0),
  });

/** The stored form of a meter's totals. */
export const UsageStateSchema = lazySchema(() => {
  const count = z.number().int().min(0);
  const totals = totalsSchema(count);
  return z.object({
    session: totals,
    byPersona: z.record(z.string(), totals).default({}),
    byModel: z.record(z.string(), totals).default({}),
    unpricedModels: z.array(z.string()).default([]),
    callsWithoutUsage: count.default(0),
  });
});

/** Restores saved totals into a fresh meter; returns why they cannot be restored (`field: problem`, nothing restored), or null. */
export function restoreUsage(meter: UsageMeter, state: unknown): string | null {
  const parsed = UsageStateSchema.safeParse(state);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `${['usage', ...issue.path.map(String)].join('.')}: ${issue.message}`;
  }
  const s = parsed.data;
  Object.assign(meter.session, s.session);
  for (const [k, v] of Object.entries(s.byPersona)) meter.byPersona.set(k, v);
  for (const [k, v] of Object.entries(s.byModel)) meter.byModel.set(k, v);
  for (const m of s.unpricedModels) meter.unpricedModels.add(m);
  meter.callsWithoutUsage = s.callsWithoutUsage;
  return null;
}

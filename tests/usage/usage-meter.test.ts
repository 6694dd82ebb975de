import { describe, expect, it } from 'vitest';
import { UsageMeter, type UsageRecord } from '../../src/usage/usage-meter.js';
import { PriceTable } from '../../src/usage/price-table.js';
import { formatUsageSummary } from '../../src/usage/summary.js';
import { sessionUsage } from '../../src/usage/session-usage.js';
import { BudgetGuard } from '../../src/usage/budget.js';

const prices = new PriceTable({ 'gpt-4o': { input: 2.5, output: 10 } }, '/x/pricing.json');

describe('UsageMeter', () => {
  it('accumulates per call, persona, model and session, with cost only for priced models', () => {
    const meter = new UsageMeter(prices);
    const seen: UsageRecord[] = [];
    meter.onRecord((r) => seen.push(r));
    meter.record('ceo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100 });
    meter.record('cfo', 'llama3', { promptTokens: 500, completionTokens: 50 });
    meter.record('ceo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100 });
    meter.record(null, 'gpt-4o', null);
    expect(seen.map((r) => [r.persona, r.cost, r.totalTokens, r.totalCost])).toEqual([
      ['ceo', 0.0035, 1100, 0.0035],
      ['cfo', null, 1650, 0.0035],
      ['ceo', 0.0035, 2750, 0.007],
    ]);
    expect(meter.byPersona.get('ceo')).toEqual({ calls: 2, promptTokens: 2000, completionTokens: 200, cost: 0.007, unpricedCalls: 0, cachedTokens: 0, cacheReported: 0, cacheablePromptTokens: 0 });
    expect(meter.byModel.get('llama3')).toMatchObject({ calls: 1, unpricedCalls: 1, cost: 0 });
    expect([...meter.unpricedModels]).toEqual(['llama3']);
    expect(meter.callsWithoutUsage).toBe(1);
  });

  it('total cost is null while nothing was priced', () => {
    const meter = new UsageMeter(prices);
    expect(meter.record('ceo', 'llama3', { promptTokens: 1, completionTokens: 1 })?.totalCost).toBeNull();
    expect(meter.totalCost).toBeNull();
  });

  it('prices by the served model id when the requested one has no price', () => {
    const meter = new UsageMeter(prices);
    expect(meter.record('ceo', 'my-alias', { promptTokens: 1000, completionTokens: 0 }, 'gpt-4o-2024-08-06')?.cost).toBe(0.0025);
  });
});

describe('formatUsageSummary', () => {
  it('lists tokens per persona, the total, and which models have no price', () => {
    const meter = new UsageMeter(prices);
    meter.record('ceo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100 });
    meter.record('creative_partner', 'llama3', { promptTokens: 2000, completionTokens: 300 });
    expect(formatUsageSummary(sessionUsage(meter))).toEqual([
      'usage: 2 call(s), 3,400 tokens (3,000 prompt + 400 completion), cost $0.0035 + unpriced',
      '  ceo                   1,100 tokens    1 call(s)  cost $0.0035',
      '  creative_partner      2,300 tokens    1 call(s)  cost unknown (no price)',
      '  no price for model llama3 — add it to /x/pricing.json (or a file named by TROUPE_PRICES) to see its cost',
    ]);
  });

  it('words the cost of the free demo model as the footer and !cost do', () => {
    const meter = new UsageMeter(prices);
    meter.record('ceo', 'demo', { promptTokens: 1000, completionTokens: 100 });
    expect(formatUsageSummary(sessionUsage(meter, { free: true }))).toEqual([
      'usage: 1 call(s), 1,100 tokens (1,000 prompt + 100 completion), cost free (demo model)',
      '  ceo      1,100 tokens    1 call(s)  cost free (demo model)',
    ]);
  });

  it('says so when there were no calls', () => {
    expect(formatUsageSummary(sessionUsage(new UsageMeter()))).toEqual(['usage: no model calls']);
  });
});

describe('BudgetGuard', () => {
  it('reports a token budget once, then again one budget later', () => {
    const meter = new UsageMeter(prices);
    const guard = new BudgetGuard(meter, { max_tokens: 1000, max_cost: null });
    meter.record('ceo', 'x', { promptTokens: 900, completionTokens: 50 });
    expect(guard.check()).toBeNull();
    meter.record('ceo', 'x', { promptTokens: 100, completionTokens: 0 });
    expect(guard.check()).toBe('token budget reached: 1050 of max_tokens 1000 used; !continue allows another 1000');
    expect(guard.check()).toBeNull();
    meter.record('ceo', 'x', { promptTokens: 1000, completionTokens: 0 });
    expect(guard.check()).toMatch(/^token budget reached: 2050/);
  });

  it('reports a cost budget from priced calls', () => {
    const meter = new UsageMeter(prices);
    const guard = new BudgetGuard(meter, { max_tokens: null, max_cost: 0.01 });
    meter.record('ceo', 'gpt-4o', { promptTokens: 3000, completionTokens: 0 });
    expect(guard.check()).toBeNull();
    meter.record('ceo', 'gpt-4o', { promptTokens: 0, completionTokens: 1000 });
    expect(guard.check()).toBe('cost budget reached: $0.0175 of max_cost $0.01 spent; !continue allows another $0.01');
  });
});

import { describe, expect, it } from 'vitest';
import { fakeServerPerTest, streamChunks } from '../helpers/fake-openai-server.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { usageFrom } from '../../src/llm/stream-assembler.js';
import { PriceTable, loadPriceTable } from '../../src/usage/price-table.js';
import { UsageMeter, restoreUsage, usageState } from '../../src/usage/usage-meter.js';
import { formatUsageSummary } from '../../src/usage/summary.js';
import { inspect } from '../../src/commands/inspect.js';
import { sessionUsage } from '../../src/usage/session-usage.js';
import { initialState } from '../../src/engine/step.js';
import { studio } from '../helpers/team.js';

const serve = fakeServerPerTest();
const prices = new PriceTable({ 'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 }, 'old-model': { input: 1, output: 2 } }, 'test');

describe('prompt caching counted (issue 10, item 14)', () => {
  it('reads prompt_tokens_details.cached_tokens from the streamed usage', async () => {
    const chunks = streamChunks('hi', undefined);
    const last = chunks[chunks.length - 1] as { usage: Record<string, unknown> };
    last.usage = { ...last.usage, prompt_tokens: 1200, prompt_tokens_details: { cached_tokens: 1024 } };
    const s = await serve([{ stream: chunks }]);
    const model = new OpenAIChatModel({ baseURL: s.baseURL, apiKey: 'k' });
    const response = await model.generate({ model: 'm', messages: [{ role: 'user', content: 'hi' }], meta: { purpose: 'persona' } });
    expect(response.usage).toEqual({ promptTokens: 1200, completionTokens: 20, cachedTokens: 1024 });
    expect(usageFrom({ prompt_tokens: 5, completion_tokens: 1 })).toEqual({ promptTokens: 5, completionTokens: 1 });
  });

  it('prices cached prompt tokens at cached_input, and at input where the table gives no cached price', () => {
    expect(prices.cost('gpt-4o', { promptTokens: 1_000_000, completionTokens: 0, cachedTokens: 800_000 })).toBeCloseTo(0.2 * 2.5 + 0.8 * 1.25, 10);
    expect(prices.cost('old-model', { promptTokens: 1_000_000, completionTokens: 0, cachedTokens: 800_000 })).toBe(1);
    expect(loadPriceTable({}).priceOf('gpt-4o-mini')).toEqual({ input: 0.15, cached_input: 0.075, output: 0.6 });
  });

  it('carries cached tokens through the meter to the summary, and restores totals saved before they were counted', () => {
    const meter = new UsageMeter(prices);
    const record = meter.record('ceo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100, cachedTokens: 600 });
    meter.record('cfo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100, cachedTokens: 0 });
    meter.record('cmo', 'gpt-4o', { promptTokens: 500, completionTokens: 100 }); // server said nothing about caching
    expect(record?.cachedTokens).toBe(600);
    expect(meter.session).toMatchObject({ cachedTokens: 600, cacheReported: 2, cacheablePromptTokens: 2000 });
    expect(formatUsageSummary(sessionUsage(meter))[1]).toBe('  prompt cache: 30% hit (600 of 2,000 prompt tokens served from cache)');
    const old = JSON.parse(JSON.stringify(usageState(meter))) as { session: Record<string, unknown> };
    for (const key of ['cachedTokens', 'cacheReported', 'cacheablePromptTokens']) delete old.session[key];
    const restored = new UsageMeter(prices);
    restoreUsage(restored, old);
    expect(restored.session).toMatchObject({ calls: 3, cachedTokens: 0, cacheReported: 0 });
  });

  it('says nothing about the cache when the server never reports it', () => {
    const meter = new UsageMeter(prices);
    meter.record('ceo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100 });
    expect(formatUsageSummary(sessionUsage(meter)).some((l) => l.includes('prompt cache'))).toBe(false);
  });

  it('!cost shows the hit rate when the meter counted cached tokens', () => {
    const team = studio();
    const meter = new UsageMeter(prices);
    meter.record('ceo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100, cachedTokens: 750 });
    meter.record('ceo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100, cachedTokens: 750 });
    const { lines } = inspect('cost', { def: team.def, session: initialState(team.def, { id: 's' }), usage: sessionUsage(meter), events: [] });
    expect(lines[lines.length - 1]).toBe('prompt cache: 75% hit (1,500 of 2,000 prompt tokens served from cache)');
    const unreported = new UsageMeter(prices);
    unreported.record('ceo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100 });
    expect(inspect('cost', { def: team.def, session: initialState(team.def, { id: 's' }), usage: sessionUsage(unreported), events: [] }).lines.some((l) => l.includes('cache'))).toBe(false);
  });
});

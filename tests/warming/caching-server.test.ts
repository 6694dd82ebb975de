import { afterEach, describe, expect, it } from 'vitest';
import type { WarmingSettings } from '../../src/config/team-schema.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { ToolFallbackModel } from '../../src/llm/tool-fallback.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { CachingOpenAIServer, type ChatBody } from '../helpers/caching-openai-server.js';
import { PrefixCache, renderPrompt } from '../helpers/prefix-cache.js';
import { studio, studioRunner } from '../helpers/team.js';

describe("PrefixCache (the test server's model of OpenAI / vLLM prompt caching)", () => {
  const opts = { blockTokens: 4, minTokens: 8, ttlMs: 1000 };
  const text = (n: number, fill = 'a') => fill.repeat(n * 4);

  it('serves whole blocks of exactly the same bytes from the start, only past the minimum', () => {
    const now = 0;
    const cache = new PrefixCache(opts, () => now);
    const first = cache.lookup(text(20));
    expect(first).toMatchObject({ promptTokens: 20, cachedTokens: 0 });
    cache.insert(first);
    // Same 17 tokens then different: 4 whole blocks (16 tokens) are the same bytes.
    expect(cache.lookup(text(17) + text(5, 'b')).cachedTokens).toBe(16);
    // A change in the first block: nothing, though the rest is the same.
    expect(cache.lookup(`b${text(20).slice(1)}`).cachedTokens).toBe(0);
    // Under the minimum nothing is served.
    expect(cache.lookup(text(7)).cachedTokens).toBe(0);
  });

  it('forgets a prefix not used for its TTL; a hit keeps it alive', () => {
    let now = 0;
    const cache = new PrefixCache(opts, () => now);
    cache.insert(cache.lookup(text(12)));
    now = 900;
    expect(cache.lookup(text(12)).cachedTokens).toBe(12);
    now = 1800;
    expect(cache.lookup(text(12)).cachedTokens).toBe(12);
    now = 2801;
    expect(cache.lookup(text(12)).cachedTokens).toBe(0);
  });

  it('renders tools right after the system message, so tools never make two personas share a head', () => {
    const tools = [{ type: 'function', function: { name: 't' } }];
    const a = renderPrompt({
      messages: [
        { role: 'system', content: 'You are A.' },
        { role: 'user', content: 'hi' },
      ],
      tools,
    });
    expect(a.indexOf('You are A.')).toBeLessThan(a.indexOf('<|tools|>'));
    expect(a.indexOf('<|tools|>')).toBeLessThan(a.indexOf('hi'));
  });
});

describe('CachingOpenAIServer', () => {
  let server: CachingOpenAIServer | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
  });

  it('reports cached tokens, models time to first token from the uncached ones, and cuts an answer at max_completion_tokens', async () => {
    const waits: number[] = [];
    server = await new CachingOpenAIServer({
      cache: { blockTokens: 16, minTokens: 0, ttlMs: 60_000 },
      latency: { baseMs: 20, perUncachedTokenMs: 0.5, perOutputTokenMs: 0 },
      answer: () => ({ text: 'The keeper lights the lamp and waits for the storm to pass.' }),
      sleep: async (ms) => void waits.push(ms),
    }).start();
    const model = new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'test' });
    const messages = [
      { role: 'system' as const, content: 'You are the keeper. '.repeat(40) },
      { role: 'user' as const, content: 'Light it.' },
    ];
    const first = await model.generate({ model: 'm', messages, meta: { purpose: 'persona' } });
    const second = await model.generate({ model: 'm', messages, maxCompletionTokens: 1, meta: { purpose: 'warming' } });
    expect(first.usage!.cachedTokens).toBe(0);
    expect(second.usage!.cachedTokens).toBeGreaterThan(0);
    expect(second.usage!.cachedTokens! % 16).toBe(0);
    expect(second.usage!.completionTokens).toBe(1);
    expect(second.finishReason).toBe('length');
    expect(server.served[1]!.body.max_completion_tokens).toBe(1);
    const [a, b] = server.served;
    expect(waits[0]).toBe(20 + 0.5 * a!.promptTokens);
    expect(waits.at(-1)).toBe(20 + 0.5 * (b!.promptTokens - b!.cachedTokens));
  });

  it('end to end: with warming "prefix" the warmed persona\'s next call finds all but its newest message cached', async () => {
    // A and B (creative partner and game designer) hand to each other; each answer is held after its first chunk until warming has had its turn.
    const A = 'creative_partner';
    const B = 'game_designer';
    let real = 0;
    const predictions: string[] = [];
    const events: TroupeEvent[] = [];
    server = await new CachingOpenAIServer({
      cache: { blockTokens: 16, minTokens: 0, ttlMs: 600_000 },
      latency: { baseMs: 0, perUncachedTokenMs: 0, perOutputTokenMs: 0 },
      answer: (body: ChatBody) => {
        if (body.max_completion_tokens !== undefined) return { text: 'ok' };
        real += 1;
        const self = /\(id: ([a-z_]+), [A-Z_]+\) \(you\)/.exec(String(body.messages?.[0]?.content))![1]!;
        const directive = real >= 6 ? { transition: 'RESPOND_TO_USER' } : { transition: 'HANDOFF_TO_AGENT', next_agent: self === A ? B : A };
        return { text: `Turn ${real}: the lamp, the tide and the keeper's log.`, toolCall: { name: 'handoff_directive', arguments: JSON.stringify(directive) } };
      },
      // Held until this turn's prediction was made and its warming request (if any) answered and told.
      hold: async () => {
        const turn = real;
        const told = () => events.filter((e) => e.type === 'warming').length;
        const sent = () => server!.served.filter((s) => s.body.max_completion_tokens !== undefined).length;
        while (predictions.length < turn) await new Promise((r) => setImmediate(r));
        for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
        while (told() < sent()) await new Promise((r) => setTimeout(r, 1));
      },
    }).start();
    const team = studio({ maxTurns: 50 });
    team.def.limits = { ...team.def.limits, ping_pong: 1000 };
    team.loaded.team.warming = { ...team.loaded.team.warming, mode: 'prefix', max_share: 10 } satisfies WarmingSettings;
    const model = new ToolFallbackModel(new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'test' }));
    const { runner } = await studioRunner(model, { team, meter: new UsageMeter() });
    runner.subscribe((e) => {
      events.push(e);
      if (e.type === 'prediction') predictions.push(e.predictions[0]?.persona ?? '');
    });
    runner.start('A lighthouse keeper game');
    await runner.settled();
    await runner.stop();
    const calls = server.served.filter((s) => s.body.max_completion_tokens === undefined);
    const warms = server.served.filter((s) => s.body.max_completion_tokens !== undefined);
    expect(calls).toHaveLength(6);
    expect(warms.length).toBeGreaterThanOrEqual(2);
    // A warming request is the head of a persona call: the same tools, one output token, cut off.
    for (const w of warms) {
      expect(w.body.tools).toEqual(calls[0]!.body.tools);
      expect(w).toMatchObject({ completionTokens: 1, body: { max_completion_tokens: 1 } });
    }
    // After each warming, the next call (for the persona warmed) is cached up to the block before its inbox
    // (the last warming was for a turn that never came: the session asked the user).
    for (const w of warms.slice(0, -1)) {
      const next = calls.find((c) => c.arrivedAt > w.arrivedAt)!;
      const inbox = renderPrompt(next.body as never).length - renderPrompt({ ...next.body, messages: next.body.messages!.slice(0, -1) } as never).length;
      expect(next.promptTokens - next.cachedTokens).toBeLessThanOrEqual(Math.ceil(inbox / 4) + 16);
    }
    // Each was answered before the turn it was for began, and reported what the server served from its cache.
    const told = events.filter((e): e is Extract<TroupeEvent, { type: 'warming' }> => e.type === 'warming');
    expect(told.slice(0, -1).every((e) => e.status === 'done' && e.completion_tokens === 1 && (e.cached_tokens ?? 0) > 0)).toBe(true);
    expect(told.at(-1)).toMatchObject({ status: 'done' });
  });
});

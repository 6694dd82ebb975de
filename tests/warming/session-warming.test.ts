import { describe, expect, it } from 'vitest';
import type { WarmingSettings } from '../../src/config/team-schema.js';
import { DIRECTIVE_TOOL_NAME } from '../../src/directive/schema.js';
import type { ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { eventsOf as of, runWarmed, WarmingDouble, type WarmingDoubleOptions } from '../helpers/warming-double.js';
import { studio } from '../helpers/team.js';

type Step = { persona: string; next?: string; transition?: string };

/** A team played from a script (see WarmingDouble): each step's persona must be the one called. */
class TeamDouble extends WarmingDouble {
  readonly label = 'team double';

  constructor(
    private readonly script: Step[],
    options: WarmingDoubleOptions = {},
  ) {
    super(options);
  }

  protected say(request: ChatRequest, n: number): string {
    const step = this.script[n - 1];
    if (!step) throw new Error(`TeamDouble: no step ${n}`);
    if (step.persona !== request.meta.persona) throw new Error(`TeamDouble: step ${n} is for ${step.persona}, the call is for ${request.meta.persona}`);
    return `Turn ${n} by ${step.persona}.`;
  }

  protected reply(request: ChatRequest, n: number, text: string): ChatResponse {
    const step = this.script[n - 1]!;
    const directive = step.next ? { transition: step.transition ?? 'HANDOFF_TO_AGENT', next_agent: step.next } : { transition: 'RESPOND_TO_USER' };
    return { text, toolCalls: [{ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(directive) }], usage: this.usageOf(n), finishReason: 'tool_calls', model: request.model };
  }
}

const A = 'creative_partner';
const B = 'game_designer';
/** A and B hand to each other `turns` times, then the last asks the user. */
function pingPong(turns: number): Step[] {
  return Array.from({ length: turns }, (_, i) => ({ persona: i % 2 === 0 ? A : B, ...(i < turns - 1 ? { next: i % 2 === 0 ? B : A } : {}) }));
}

async function run(script: Step[], warming: Partial<WarmingSettings>, options: ConstructorParameters<typeof TeamDouble>[1] = {}) {
  const team = studio({ maxTurns: 100 });
  // Long A<->B runs are the point here: loop detection stays out of the way.
  team.def.limits = { ...team.def.limits, ping_pong: 1000 };
  team.loaded.team.warming = { ...team.loaded.team.warming, ...warming };
  const model = new TeamDouble(script, options);
  return runWarmed(model, 'A lighthouse keeper game', { team });
}

describe('state warming in a session (issue 24)', () => {
  it('predicts who is next as each answer streams, learning from the session: A and B hand to each other', async () => {
    const { events, model, runner } = await run(pingPong(6), { mode: 'predict' });
    const predictions = of(events, 'prediction');
    expect(predictions.map((p) => p.persona)).toEqual([A, B, A, B, A, B]);
    expect(predictions.every((p) => p.on === 'inbox' && p.predictions.length <= 3)).toBe(true);
    // From the third turn the history signal has seen A -> B and B -> A.
    for (const p of predictions.slice(2)) expect(p.predictions[0]!.persona).toBe(p.persona === A ? B : A);
    expect(predictions[2]!.predictions[0]).toMatchObject({ history: 1 });
    // Live facts: not stored (seq is the last stored one's), and `predict` sends nothing to warm.
    expect(model.warmings).toEqual([]);
    expect(runner.warming()).toMatchObject({ mode: 'predict', latest: { persona: B } });
  });

  it('"prefix" sends the next persona\'s prompt head as a one-token warming request once the server has served cached tokens, metered apart', async () => {
    const { events, model, meter, runner } = await run(pingPong(6), { mode: 'prefix', max_share: 10 });
    // Cached tokens are first reported by call 2: warming starts in call 3 (predicting B), then 4, 5, 6.
    expect(model.warmings.map((w) => w.meta.persona)).toEqual([B, A, B, A]);
    const [w] = model.warmings;
    expect(w).toMatchObject({ maxCompletionTokens: 1, meta: { purpose: 'warming', persona: B } });
    expect(w!.tools?.map((t) => t.name)).toEqual([DIRECTIVE_TOOL_NAME]);
    // The head it sends is exactly where B's next call starts (memory off: system prompt and transcript).
    const next = model.calls[3]!;
    expect(next.meta.persona).toBe(B);
    expect(next.messages.slice(0, w!.messages.length)).toEqual(w!.messages);
    expect(next.messages.length).toBe(w!.messages.length + 1);
    const warmed = of(events, 'warming');
    expect(warmed.map((e) => e.status)).toEqual(['done', 'done', 'done', 'done']);
    expect(warmed.at(-1)).toMatchObject({ total_requests: 4, completion_tokens: 1, cached_tokens: 5 });
    // Warming is not in the session's own usage.
    expect(meter.session.calls).toBe(6);
    expect(runner.warming()!.totals).toMatchObject({ requests: 4, aborted: 0, failed: 0 });
  });

  it('sends no warming request for a model that needs no server (the demo), nor with "predict"', async () => {
    const offline = await run(pingPong(6), { mode: 'prefix' }, { offline: true });
    expect(offline.model.warmings).toEqual([]);
    expect(of(offline.events, 'prediction').length).toBe(6);
    const off = await run(pingPong(4), { mode: 'off' }, { noPredictions: true });
    expect(of(off.events, 'prediction')).toEqual([]);
    expect(off.runner.warming()).toBeNull();
  });

  it("never goes beyond its budget: max_tokens stops it (said once), max_share holds it to the session's own prompt tokens", async () => {
    const capped = await run(pingPong(10), { mode: 'prefix', max_tokens: 1 });
    expect(capped.model.warmings).toEqual([]);
    expect(of(capped.events, 'note').filter((n) => n.text.startsWith('warming stopped: its budget'))).toHaveLength(1);
    // Each request is charged at least troupe's estimate of its prompt; the charged total stays within the cap.
    const one = await run(pingPong(10), { mode: 'prefix', max_share: 10 });
    const charged = of(one.events, 'warming').map((e) => e.prompt_tokens);
    const cap = charged[0]! + charged[1]! + Math.floor(charged[2]! / 2);
    const two = await run(pingPong(10), { mode: 'prefix', max_share: 10, max_tokens: cap });
    expect(two.model.warmings).toHaveLength(2);
    expect(of(two.events, 'warming').at(-1)!.total_prompt_tokens).toBeLessThanOrEqual(cap);
    // max_share: the session's own calls report 1,000 prompt tokens each, so a share of 0.5 lets warming
    // send at most half of what they sent, at every point.
    const share = await run(pingPong(10), { mode: 'prefix', max_share: 0.5 });
    for (const e of of(share.events, 'warming')) {
      const own = of(share.events, 'usage')
        .filter((u) => u.seq < e.seq)
        .reduce((n, u) => n + u.prompt_tokens, 0);
      expect(e.total_prompt_tokens).toBeLessThanOrEqual(0.5 * own);
    }
    expect(share.model.warmings.length).toBeGreaterThan(0);
    expect(share.model.warmings.length).toBeLessThan(one.model.warmings.length);
  });

  it('aborts warming when the session moves on: another persona got the turn, or the session waits for the user; turns never wait for it', async () => {
    // A and B alternate, then B hands to the CEO (not what was predicted), the CEO back to A, who asks the user.
    const script: Step[] = [{ persona: A, next: B }, { persona: B, next: A }, { persona: A, next: B }, { persona: B, next: 'ceo' }, { persona: 'ceo', next: A }, { persona: A }];
    const { events, model } = await run(script, { mode: 'prefix', max_share: 10 }, { holdWarming: true });
    // Every turn ran although no warming request ever answered.
    expect(model.calls.map((c) => c.meta.persona)).toEqual([A, B, A, B, 'ceo', A]);
    const warmed = of(events, 'warming');
    expect(warmed.every((e) => e.status === 'aborted')).toBe(true);
    // Warming B during call 3 is cut when B's call starts (too late to help), A during call 4 when the CEO gets the turn,
    // B during the last call when the session stops for the user.
    expect(warmed.map((e) => [e.persona, e.reason])).toEqual([
      [B, `${B} got the turn`],
      [A, 'ceo got the turn'],
      [B, 'the session stopped for the user'],
    ]);
    expect(model.warmings.every((w) => w.signal?.aborted)).toBe(true);
  });
});

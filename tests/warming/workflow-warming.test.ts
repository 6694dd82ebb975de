import { describe, expect, it, vi } from 'vitest';
import { WarmingSettingsSchema, type WarmingSettings } from '../../src/config/team-schema.js';
import type { ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { eventsOf as of, runWarmed, WarmingDouble, type WarmingDoubleOptions } from '../helpers/warming-double.js';
import type { WorkflowPlan } from '../../src/workflow/run/plan.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { learnTransitions } from '../../src/warming/learned.js';
import { compileWorkflow } from '../../src/workflow/run/compile.js';
import { studioRunner } from '../helpers/team.js';
import { coderReviewerPlan } from '../helpers/workflow-plan.js';

/** Seed 000's coder_reviewer, as the loader normalises it, with its `warming` setting. */
function coderReviewer(warming: Partial<WarmingSettings> | undefined): WorkflowPlan {
  return coderReviewerPlan({
    name: 'coder_reviewer',
    source: 'test',
    systemMessages: { coder: 'You code.', reviewer: 'You review.' },
    maxLength: 50_000,
    reviewTool: { name: 'review_work', description: 'Your verdict', parameters: { type: 'object', properties: {} } },
    taskPrefix: 'Do:',
    reviewInput: 'review',
    summary: 'done',
    ...(warming ? { warming: WarmingSettingsSchema.parse(warming) } : {}),
  });
}

/** The coder and the reviewer played from a script (see WarmingDouble): the reviewer asks for changes `rounds - 1` times. */
class LoopDouble extends WarmingDouble {
  readonly label = 'loop double';
  private reviews = 0;

  constructor(
    private readonly rounds: number,
    options: WarmingDoubleOptions = {},
  ) {
    super(options);
  }

  protected say(request: ChatRequest, n: number): string {
    return request.meta.persona === 'reviewer' ? `Review ${this.reviews + 1}.` : `Code version ${n}.`;
  }

  protected reply(request: ChatRequest, n: number, text: string): ChatResponse {
    const usage = this.usageOf(n);
    if (request.meta.persona !== 'reviewer') return { text, toolCalls: [], usage, finishReason: 'stop', model: request.model };
    this.reviews += 1;
    const verdict = { improvement_needed: this.reviews < this.rounds, continue_message: `Fix round ${this.reviews}.` };
    return { text, toolCalls: [{ name: 'review_work', arguments: JSON.stringify(verdict) }], usage, finishReason: 'tool_calls', model: request.model };
  }
}

async function run(rounds: number, warming: Partial<WarmingSettings> | undefined, options: ConstructorParameters<typeof LoopDouble>[1] = {}) {
  const model = new LoopDouble(rounds, options);
  return runWarmed(model, 'a parser', { workflow: coderReviewer(warming) });
}

describe('state warming in a workflow (issue 24)', () => {
  it('predicts the next agent from the transition table, weighted by what this run did: coder -> reviewer, then reviewer -> coder or the end', async () => {
    const { events, model, runner } = await run(3, undefined);
    expect(model.calls.map((c) => c.meta.persona)).toEqual(['coder', 'reviewer', 'coder', 'reviewer', 'coder', 'reviewer']);
    const predictions = of(events, 'prediction');
    expect(predictions.map((p) => p.persona)).toEqual(['coder', 'reviewer', 'coder', 'reviewer', 'coder', 'reviewer']);
    // The code state has one way out: the reviewer, for sure.
    expect(predictions[0]).toMatchObject({ turn_id: model.calls[0]!.meta.turnId, on: 'inbox', predictions: [{ persona: 'reviewer', confidence: 1, history: 0, context: 0, dependency: 1 }] });
    // The review state goes back to the coder or ends: even at first, then the coder as this run keeps going back.
    expect(predictions[1]!.predictions).toEqual([{ persona: 'coder', confidence: 0.5, history: 0, context: 0, dependency: 0.5 }]);
    expect(predictions[3]!.predictions[0]).toMatchObject({ persona: 'coder', confidence: 0.8, history: 1 });
    expect(predictions[5]!.predictions[0]).toMatchObject({ persona: 'coder', confidence: 0.875 });
    // The default for a workflow is "predict": nothing is sent.
    expect(model.warmings).toEqual([]);
    expect(runner.warming()).toMatchObject({ mode: 'predict', latest: { persona: 'reviewer' } });
  });

  it('"prefix" sends the next agent\'s prompt head (its context as it is) as a one-token warming request, metered apart', async () => {
    const { events, model, meter } = await run(3, { mode: 'prefix', max_share: 10 });
    // Cached tokens are first reported by call 2: warming starts in call 3 (predicting the reviewer).
    expect(model.warmings.map((w) => w.meta.persona)).toEqual(['reviewer', 'coder', 'reviewer', 'coder']);
    const [w] = model.warmings;
    expect(w).toMatchObject({ maxCompletionTokens: 1, meta: { purpose: 'warming', persona: 'reviewer' } });
    expect(w!.tools?.map((t) => t.name)).toEqual(['review_work']);
    // The head it sends is exactly where the reviewer's next call starts.
    const next = model.calls[3]!;
    expect(next.meta.persona).toBe('reviewer');
    expect(w!.messages[0]).toEqual({ role: 'system', content: 'You review.' });
    expect(next.messages.slice(0, w!.messages.length)).toEqual(w!.messages);
    expect(next.messages.length).toBeGreaterThan(w!.messages.length);
    const warmed = of(events, 'warming');
    expect(warmed.slice(0, 3).map((e) => e.status)).toEqual(['done', 'done', 'done']);
    expect(meter.session.calls).toBe(6);
  });

  it('sends nothing with "off" (no predictions either) or "predict", nor for a model that needs no server (the demo)', async () => {
    const off = await run(2, { mode: 'off' }, { noPredictions: true });
    expect(of(off.events, 'prediction')).toEqual([]);
    expect(off.model.warmings).toEqual([]);
    expect(off.runner.warming()).toBeNull();
    const offline = await run(2, { mode: 'prefix', max_share: 10 }, { offline: true });
    expect(of(offline.events, 'prediction')).toHaveLength(4);
    expect(offline.model.warmings).toEqual([]);
  });

  it('never goes beyond its budget: max_tokens (a request that does not fit is not sent; a smaller one later may be)', async () => {
    const one = await run(4, { mode: 'prefix', max_share: 10 });
    const charged = of(one.events, 'warming').map((e) => e.prompt_tokens);
    expect(charged.length).toBe(6);
    const cap = charged[0]! + charged[1]! + Math.floor(charged[2]! / 2);
    const capped = await run(4, { mode: 'prefix', max_share: 10, max_tokens: cap });
    const sent = of(capped.events, 'warming');
    // The reviewer's head (its parsing tool counted in) no longer fits after two; the coder's smaller ones still do.
    expect(sent.length).toBeLessThan(charged.length);
    expect(sent.slice(0, 2).map((e) => e.persona)).toEqual(['reviewer', 'coder']);
    expect(sent.every((e) => e.total_prompt_tokens <= cap)).toBe(true);
    expect(capped.model.warmings).toHaveLength(sent.length);
    expect(of(capped.events, 'note').filter((n) => n.text.startsWith('warming stopped: its budget'))).toHaveLength(1);
  });

  it('aborts warming when the run moves on (the next agent got the turn, the run ended); turns never wait for it', async () => {
    const { events, model } = await run(2, { mode: 'prefix', max_share: 10 }, { holdWarming: true });
    expect(model.calls.map((c) => c.meta.persona)).toEqual(['coder', 'reviewer', 'coder', 'reviewer']);
    const warmed = of(events, 'warming');
    expect(warmed.map((e) => [e.persona, e.status, e.reason])).toEqual([
      ['reviewer', 'aborted', 'reviewer got the turn'],
      ['coder', 'aborted', 'the session stopped for the user'],
    ]);
    expect(model.warmings.every((w) => w.signal?.aborted)).toBe(true);
  });

  it("keeps the run's transitions in its checkpoint, by state, for the workflow's later runs to learn from without reading its events", async () => {
    const store = new MemoryStore();
    const model = new LoopDouble(3, { noPredictions: true });
    const { runner } = await studioRunner(model, { workflow: coderReviewer({ mode: 'off' }), store, id: 'w1' });
    runner.start('a parser');
    await runner.settled();
    await runner.stop();
    const doc = JSON.parse(store.copy('w1').doc) as { checkpoint: { transitions?: unknown } };
    expect(doc.checkpoint.transitions).toEqual({ code: { review: 3 }, review: { code: 2 } });
    const read = vi.spyOn(store, 'read');
    expect((await learnTransitions(store, compileWorkflow(coderReviewer(undefined)), null)).toJSON()).toEqual({ code: { review: 3 }, review: { code: 2 } });
    expect(read).not.toHaveBeenCalled();
    // The next run predicts with them (listed once its first answer is in): at its second review, this run's one
    // review -> code (three times) and the stored run's two.
    const next = new LoopDouble(3);
    const second = await studioRunner(next, { workflow: coderReviewer(undefined), store, id: 'w2' });
    second.runner.subscribe((e) => {
      if (e.type === 'prediction') next.predicted();
    });
    second.runner.start('a parser');
    await second.runner.settled();
    await second.runner.stop();
    const predictions = of(second.events, 'prediction');
    expect(predictions[3]).toMatchObject({ persona: 'reviewer', predictions: [{ persona: 'coder', confidence: 0.857, history: 1 }] });
    expect(read).not.toHaveBeenCalled();
  });
});

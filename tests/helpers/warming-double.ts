import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { AbortedError } from '../../src/llm/errors.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { studioRunner } from './team.js';

/** How a warming double behaves: offline (no warming), warming held until aborted, its usage, and whether calls wait for predictions. */
export interface WarmingDoubleOptions {
  offline?: boolean;
  holdWarming?: boolean;
  warmingUsage?: { promptTokens: number; cachedTokens: number };
  noPredictions?: boolean;
}

const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A model played from a script for the warming tests: each call streams its text, then waits until the
 * session has published its prediction and warming has had its turn (event order only, no timers: the test
 * tells it each prediction through `predicted()`); warming requests are recorded and answered at once, or
 * held until aborted. Subclasses say what each call streams and how it ends.
 */
export abstract class WarmingDouble implements ChatModel {
  abstract readonly label: string;
  readonly calls: ChatRequest[] = [];
  readonly warmings: ChatRequest[] = [];
  private predictions = 0;
  private readonly waiting: { n: number; resolve: () => void }[] = [];

  constructor(protected readonly options: WarmingDoubleOptions = {}) {}

  get offline(): boolean | undefined {
    return this.options.offline;
  }

  /** Told each prediction event (the test subscribes it). */
  predicted(): void {
    this.predictions += 1;
    for (const w of this.waiting.filter((x) => x.n <= this.predictions)) {
      this.waiting.splice(this.waiting.indexOf(w), 1);
      w.resolve();
    }
  }

  /** What call `n` streams (it may throw to fail the test's script). */
  protected abstract say(request: ChatRequest, n: number): string;

  /** How call `n` ends, once its prediction is out. */
  protected abstract reply(request: ChatRequest, n: number, text: string): ChatResponse;

  /** The usage of call `n`: the prompt cached from the second call on. */
  protected usageOf(n: number): NonNullable<ChatResponse['usage']> {
    return { promptTokens: 1000, completionTokens: 50, cachedTokens: n > 1 ? 600 : 0 };
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (request.meta.purpose === 'warming') {
      this.warmings.push(request);
      if (this.options.holdWarming) {
        await new Promise<never>((_, reject) => {
          if (request.signal?.aborted) reject(new AbortedError('call aborted'));
          request.signal?.addEventListener('abort', () => reject(new AbortedError('call aborted')), { once: true });
        });
      }
      const usage = this.options.warmingUsage ?? { promptTokens: 10, cachedTokens: 5 };
      return { text: '', toolCalls: [], usage: { ...usage, completionTokens: 1 }, finishReason: 'length', model: request.model };
    }
    const n = this.calls.push(request);
    const text = this.say(request, n);
    request.onDelta?.({ type: 'text', text });
    if (!this.options.noPredictions && this.predictions < n) await new Promise<void>((resolve) => this.waiting.push({ n, resolve }));
    await nextTask();
    await nextTask();
    return this.reply(request, n, text);
  }
}

/**
 * Runs a studio session on `model` until it settles (the double told each prediction), then stops it; `options`
 * give the team or the workflow it runs. Returns the model, the published events, the meter and the runner.
 */
export async function runWarmed<M extends WarmingDouble>(model: M, brief: string, options: Parameters<typeof studioRunner>[1] = {}) {
  const meter = new UsageMeter();
  const { runner, events } = await studioRunner(model, { ...options, meter });
  runner.subscribe((e) => {
    if (e.type === 'prediction') model.predicted();
  });
  runner.start(brief);
  await runner.settled();
  await runner.stop();
  return { model, events, meter, runner };
}

/** The events of one type, typed. */
export const eventsOf = <T extends TroupeEvent['type']>(events: TroupeEvent[], type: T) => events.filter((e): e is Extract<TroupeEvent, { type: T }> => e.type === type);

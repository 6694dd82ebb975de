import type { ChatModel, ChatRequest, ChatResponse, Usage } from './chat-model.js';
import { AbortedError } from './errors.js';
import { abortableSleep } from './sleep.js';
import { DIRECTIVE_TOOL_NAME } from '../directive/schema.js';
import { TroupeError } from '../errors.js';

/** One scripted reply: text, a directive (sent as a tool call), raw tool calls, or an error. */
export interface ScriptStep {
  text?: string;
  directive?: Record<string, unknown>;
  /** Raw tool calls, each with an optional id (a tool loop gives calls without one an id of its own). */
  toolCalls?: { id?: string; name: string; arguments: string }[];
  error?: Error;
  delayMs?: number;
  /** Answer only once this settles (or the call is aborted): a test decides when, no timer races. */
  hold?: Promise<unknown>;
  usage?: Usage;
  finishReason?: string;
}

/** A step, or a function of the request returning one. */
export type ScriptEntry = ScriptStep | ((request: ChatRequest) => ScriptStep);

function untilSettledOrAborted(promise: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError('call aborted'));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    promise
      .then(
        () => resolve(),
        () => resolve(),
      )
      .finally(() => signal?.removeEventListener('abort', onAbort));
  });
}

/** A promise that never settles: a step holding it answers only when aborted. */
export const FOREVER: Promise<never> = new Promise<never>(() => undefined);

/** A call made after the script ran out: a test whose model is asked more than its script holds is wrong. */
export class ScriptExhaustedError extends TroupeError {}

/**
 * A test model that consumes one step per call and records every request. A call past the end of the
 * script throws, and is also kept in `ScriptedModel.unexpected` (the session turns the throw into a
 * paused turn, so test setups check that list after each test); `assertComplete()` checks every step was used.
 */
export class ScriptedModel implements ChatModel {
  /** Calls made past the end of a script, by any scripted model, since the list was last emptied. */
  static readonly unexpected: string[] = [];
  readonly label = 'scripted model';
  readonly calls: ChatRequest[] = [];
  private next = 0;
  private readonly waiting: { n: number; resolve: () => void }[] = [];

  constructor(private readonly script: ScriptEntry[]) {}

  /** Steps not yet consumed. */
  get remaining(): number {
    return this.script.length - this.next;
  }

  /** Throws unless every step of the script was used. */
  assertComplete(): void {
    if (this.remaining > 0) throw new Error(`ScriptedModel: ${this.remaining} of ${this.script.length} step(s) never used`);
  }

  /** Resolves once the model has been called `n` times (the n-th call has started, not necessarily answered). */
  started(n = 1): Promise<void> {
    if (this.calls.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ n, resolve }));
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    this.calls.push(request);
    for (const w of this.waiting.filter((x) => x.n <= this.calls.length)) {
      this.waiting.splice(this.waiting.indexOf(w), 1);
      w.resolve();
    }
    const entry = this.script[this.next];
    if (entry === undefined) {
      const message = `ScriptedModel: script exhausted after ${this.script.length} step(s); unexpected call #${this.calls.length} for ${request.meta.persona ?? request.meta.purpose}`;
      ScriptedModel.unexpected.push(message);
      throw new ScriptExhaustedError(message);
    }
    this.next += 1;
    const step = typeof entry === 'function' ? entry(request) : entry;
    if (step.delayMs) await abortableSleep(step.delayMs, request.signal);
    if (step.hold) await untilSettledOrAborted(step.hold, request.signal);
    if (request.signal?.aborted) throw new AbortedError('call aborted');
    if (step.error) throw step.error;
    const text = step.text ?? '';
    if (text && request.onDelta) request.onDelta({ type: 'text', text });
    const toolCalls = [...(step.toolCalls ?? []), ...(step.directive ? [{ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(step.directive) }] : [])];
    return { text, toolCalls, usage: step.usage ?? null, finishReason: step.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'), model: request.model };
  }
}

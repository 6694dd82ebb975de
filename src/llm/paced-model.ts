import type { ChatDelta, ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import { AbortedError } from './errors.js';
import { abortableSleep } from './sleep.js';
import { WrappedModel } from './wrapped-model.js';

/** Waits `ms`, or rejects at once when the signal aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * Replays an instant model's streamed deltas at a reading pace, so the UI can show the demo team
 * thinking and the user has time to interject; the call stays abortable throughout.
 */
export class PacedModel extends WrappedModel {
  constructor(
    inner: ChatModel,
    private readonly msPerDelta: number,
    private readonly sleep: Sleep = abortableSleep,
  ) {
    super(inner);
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    const deltas: ChatDelta[] = [];
    const response = await this.inner.generate({ ...request, onDelta: (d) => deltas.push(d) });
    for (const d of deltas) {
      await this.sleep(this.msPerDelta, request.signal);
      request.onDelta?.(d);
    }
    if (request.signal?.aborted) throw new AbortedError('call aborted');
    return response;
  }
}

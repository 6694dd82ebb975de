import type { ChatModel, ChatRequest, ChatResponse, RetryInfo } from '../llm/chat-model.js';
import { WrappedModel } from '../llm/wrapped-model.js';
import type { StepRunner } from './ports.js';

/** A step's kept result: the response and the retries it took (told to the caller after the step, also on replay). */
interface ModelStep {
  response: ChatResponse;
  retries: RetryInfo[];
}

/**
 * Makes every call of a model one step of a step runner. With journaled steps (Restate) a finished call is
 * kept and never made again, and its retries are told after the step from what was kept, so a replayed
 * step publishes the same facts; streamed deltas stay live only (they repeat the final answer). With
 * direct steps the model is called as it is.
 */
export class DurableModel extends WrappedModel {
  constructor(
    inner: ChatModel,
    private readonly steps: StepRunner,
  ) {
    super(inner);
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (this.steps.kind === 'direct') return this.inner.generate(request);
    const { onRetry, signal: outer, ...rest } = request;
    const name = `model ${request.meta.persona ?? request.meta.purpose}`;
    const kept = await this.steps.run<ModelStep>(
      name,
      async (signal) => {
        const retries: RetryInfo[] = [];
        const response = await this.inner.generate({ ...rest, signal, onRetry: (i) => retries.push({ attempt: i.attempt, waitMs: i.waitMs, reason: i.reason }) });
        return { response, retries };
      },
      outer ?? new AbortController().signal,
    );
    for (const r of kept.retries) onRetry?.(r);
    return kept.response;
  }
}

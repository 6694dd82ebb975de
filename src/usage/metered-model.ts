import type { ChatModel, ChatRequest, ChatResponse } from '../llm/chat-model.js';
import type { UsageMeter } from './usage-meter.js';

/** Wraps a model so every call's usage (persona turns and summaries alike) reaches the meter. */
export class MeteredModel implements ChatModel {
  constructor(
    private readonly inner: ChatModel,
    private readonly meter: UsageMeter,
  ) {}

  get label(): string {
    return this.inner.label;
  }

  get offline(): boolean | undefined {
    return this.inner.offline;
  }

  get free(): boolean | undefined {
    return this.inner.free;
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    const response = await this.inner.generate(request);
    const persona = request.meta.purpose === 'persona' ? (request.meta.persona ?? null) : null;
    // A free model (the demo) is metered under the id it reports, which has no price.
    const model = this.inner.free ? response.model : request.model;
    this.meter.record(persona, model, response.usage, response.model);
    return response;
  }
}

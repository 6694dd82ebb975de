import type { ChatModel, ChatRequest, ChatResponse } from '../llm/chat-model.js';
import type { UsageMeter } from './usage-meter.js';
import { WrappedModel } from '../llm/wrapped-model.js';

/** Wraps a model so every call's usage (persona turns and summaries alike) reaches the meter. */
export class MeteredModel extends WrappedModel {
  constructor(
    inner: ChatModel,
    private readonly meter: UsageMeter,
  ) {
    super(inner);
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    const response = await this.inner.generate(request);
    // Summaries are the memory's (persona null); persona and workflow turns are their agent's.
    const persona = request.meta.purpose !== 'summary' ? (request.meta.persona ?? null) : null;
    // A free model (the demo) is metered under the id it reports, which has no price.
    const model = this.inner.free ? response.model : request.model;
    this.meter.record(persona, model, response.usage, response.model);
    return response;
  }
}

import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.js';

/** A model that wraps another and keeps its identity (label, offline, free, answeredBy); a wrapper overrides `generate`. */
export abstract class WrappedModel implements ChatModel {
  constructor(protected readonly inner: ChatModel) {}

  get label(): string {
    return this.inner.label;
  }

  get offline(): boolean | undefined {
    return this.inner.offline;
  }

  get free(): boolean | undefined {
    return this.inner.free;
  }

  get answeredBy(): string | undefined {
    return this.inner.answeredBy;
  }

  abstract generate(request: ChatRequest): Promise<ChatResponse>;

  preload(): Promise<void> {
    return this.inner.preload?.() ?? Promise.resolve();
  }
}

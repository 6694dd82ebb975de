import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import { ModelCallError } from './errors.js';
import { toJsonRequest } from './json-mode.js';
import { WrappedModel } from './wrapped-model.js';

/** How a model id gets its directive: tool calls, JSON mode (response_format), or JSON asked for in plain text. */
export type DirectiveChannel = 'tools' | 'json' | 'plain';

/**
 * Falls back from tool calling to a JSON object in the text when a server rejects `tools`
 * (a 400 naming tools) or answers without a tool call; remembered per model id for the session.
 * A server that also rejects `response_format` gets the JSON instruction alone.
 */
export class ToolFallbackModel extends WrappedModel {
  /** The channel chosen per model id; absent means tools. */
  readonly channels = new Map<string, DirectiveChannel>();

  constructor(
    inner: ChatModel,
    private readonly onFallback?: (info: { model: string; channel: DirectiveChannel; why: string }) => void,
  ) {
    super(inner);
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (!request.tools?.length || request.jsonMode) return this.inner.generate(request);
    for (;;) {
      const channel = this.channels.get(request.model) ?? 'tools';
      try {
        const response = await this.inner.generate(channel === 'tools' ? request : toJsonRequest(request, channel === 'json'));
        // A reply cut off by length may simply not have reached its tool call yet.
        if (channel === 'tools' && response.toolCalls.length === 0 && response.finishReason !== 'length') {
          this.switch(request.model, 'json', 'it answered without a tool call');
        }
        return response;
      } catch (error) {
        if (!(error instanceof ModelCallError) || error.status !== 400) throw error;
        if (channel === 'tools' && /tool/i.test(error.message)) this.switch(request.model, 'json', 'the server rejected tools');
        else if (channel === 'json' && /response_format|json_object|json mode|json_schema/i.test(error.message)) this.switch(request.model, 'plain', 'the server rejected response_format');
        else throw error;
      }
    }
  }

  private switch(model: string, channel: DirectiveChannel, why: string): void {
    this.channels.set(model, channel);
    this.onFallback?.({ model, channel, why });
  }
}

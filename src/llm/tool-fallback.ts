import type { ChatModel, ChatRequest, ChatResponse, ToolChoice } from './chat-model.js';
import { ModelCallError } from './errors.js';
import { toJsonRequest } from './json-mode.js';
import { WrappedModel } from './wrapped-model.js';
import { extractJsonObject } from '../directive/parse.js';

/** How a model id gets its directive: tool calls, JSON mode (response_format), or JSON asked for in plain text. */
export type DirectiveChannel = 'tools' | 'json' | 'plain';

/** How far a server lets tool_choice force a tool: by name, any tool ('required'), or not at all. */
export type Forcing = 'named' | 'required' | 'none';

/** Answers in a row without a tool call after which a model counts as one that never calls tools. */
const TOOLLESS_LIMIT = 2;

const forced = (choice: ToolChoice | undefined): boolean => choice !== undefined && choice !== 'auto' && choice !== 'none';

/**
 * Keeps tool calling working on servers that differ in what they accept:
 * - a 400 naming tool_choice weakens how a tool is forced for that model (named, then required, then not);
 * - a 400 naming tools, a forced call answered without a tool call, or two answers in a row without
 *   one switch that model to a JSON object in the text (and the call that showed it is sent again
 *   that way, unless its text already holds a JSON object);
 * - a single answer without a tool call (say, a garbled one) leaves tools on: the repair round
 *   forces the tool instead of abandoning it.
 * A server that also rejects `response_format` gets the JSON instruction alone. All per model id, for the session.
 */
export class ToolFallbackModel extends WrappedModel {
  /** The channel chosen per model id; absent means tools. */
  readonly channels = new Map<string, DirectiveChannel>();
  /** How a tool may be forced per model id; absent means by name. */
  readonly forcing = new Map<string, Forcing>();
  private readonly toolless = new Map<string, number>();

  constructor(
    inner: ChatModel,
    private readonly onFallback?: (info: { model: string; channel: DirectiveChannel; why: string }) => void,
  ) {
    super(inner);
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    // A warming request is the head of a persona turn: it goes the way that persona's turns go now (never switching it).
    if (request.meta.purpose === 'warming' && request.tools?.length && !request.jsonMode) {
      const channel = this.channels.get(request.model) ?? 'tools';
      return this.inner.generate(channel === 'tools' ? this.withForcing(request) : toJsonRequest(request, channel === 'json'));
    }
    // The fallback is about the handoff directive of persona turns; other calls use tools as they are.
    if (!request.tools?.length || request.jsonMode || request.meta.purpose !== 'persona') return this.inner.generate(request);
    for (;;) {
      const channel = this.channels.get(request.model) ?? 'tools';
      const sent = channel === 'tools' ? this.withForcing(request) : toJsonRequest(request, channel === 'json');
      try {
        const response = await this.inner.generate(sent);
        // A reply cut off by length may simply not have reached its tool call yet.
        if (channel !== 'tools' || response.toolCalls.length > 0 || response.finishReason === 'length') {
          if (response.toolCalls.length > 0) this.toolless.delete(request.model);
          return response;
        }
        const count = (this.toolless.get(request.model) ?? 0) + 1;
        this.toolless.set(request.model, count);
        if (forced(sent.toolChoice)) this.switch(request.model, 'json', 'it answered without a tool call even when told to call one');
        else if (count >= TOOLLESS_LIMIT) this.switch(request.model, 'json', `it answered ${count} times in a row without a tool call`);
        else return response;
        // Switched: an answer that already carries a JSON object stands; otherwise ask again in JSON mode now.
        if (extractJsonObject(response.text) !== undefined) return response;
      } catch (error) {
        if (!(error instanceof ModelCallError) || error.status !== 400) throw error;
        if (channel === 'tools' && forced(sent.toolChoice) && /tool_choice/i.test(error.message)) this.weaken(request.model);
        else if (channel === 'tools' && /tool/i.test(error.message)) this.switch(request.model, 'json', 'the server rejected tools');
        else if (channel === 'json' && /response_format|json_object|json mode|json_schema/i.test(error.message)) this.switch(request.model, 'plain', 'the server rejected response_format');
        else throw error;
      }
    }
  }

  /** The request with its tool_choice as strong as this model's server accepts. */
  private withForcing(request: ChatRequest): ChatRequest {
    const level = this.forcing.get(request.model) ?? 'named';
    const choice = request.toolChoice;
    if (!forced(choice) || level === 'named' || (level === 'required' && choice === 'required')) return request;
    const { toolChoice: _choice, ...rest } = request;
    return level === 'required' ? { ...rest, toolChoice: 'required' } : rest;
  }

  private weaken(model: string): void {
    this.forcing.set(model, (this.forcing.get(model) ?? 'named') === 'named' ? 'required' : 'none');
  }

  private switch(model: string, channel: DirectiveChannel, why: string): void {
    this.channels.set(model, channel);
    this.toolless.delete(model);
    this.onFallback?.({ model, channel, why });
  }
}

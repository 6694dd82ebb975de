import OpenAI from 'openai';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import { AbortedError, ModelCallError } from './errors.js';

/** Options for the OpenAI-compatible adapter. */
export interface OpenAIModelOptions {
  apiKey?: string;
  baseURL?: string;
  /** Inject a client (tests, custom fetch). */
  client?: OpenAI;
  timeoutMs?: number;
  maxRetries?: number;
}

/** Redacts anything that looks like a bearer token or API key from a message. */
export function redact(text: string): string {
  return text.replace(/(sk-[A-Za-z0-9_-]{4})[A-Za-z0-9_-]+/g, '$1…').replace(/(Bearer\s+)\S+/gi, '$1…');
}

/** Chat model on any OpenAI-compatible server (OpenAI, Azure, OpenRouter, vLLM, Ollama...). */
export class OpenAIChatModel implements ChatModel {
  readonly label: string;
  private readonly client: OpenAI;

  constructor(options: OpenAIModelOptions = {}) {
    this.client =
      options.client ??
      new OpenAI({
        apiKey: options.apiKey ?? 'not-needed',
        baseURL: options.baseURL,
        timeout: options.timeoutMs ?? 120_000,
        maxRetries: options.maxRetries ?? 2,
      });
    this.label = `openai-compatible ${options.baseURL ?? 'api.openai.com'}`;
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    try {
      const completion = await this.client.chat.completions.create(
        {
          model: request.model,
          messages: request.messages,
          ...(request.tools && request.tools.length > 0
            ? { tools: request.tools.map((t) => ({ type: 'function' as const, function: t })), tool_choice: 'auto' as const }
            : {}),
          ...(request.jsonMode ? { response_format: { type: 'json_object' as const } } : {}),
        },
        { signal: request.signal },
      );
      const choice = completion.choices?.[0];
      if (!choice) throw new ModelCallError('the server returned no choices', true);
      const message = choice.message;
      const toolCalls = (message?.tool_calls ?? []).flatMap((c) =>
        c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '' }] : [],
      );
      return {
        text: message?.content ?? '',
        toolCalls,
        usage: completion.usage
          ? { promptTokens: completion.usage.prompt_tokens, completionTokens: completion.usage.completion_tokens }
          : null,
        finishReason: choice.finish_reason ?? null,
        model: completion.model ?? request.model,
      };
    } catch (error) {
      throw toModelError(error, request.signal);
    }
  }
}

/** Maps SDK and network failures to one-line, key-free errors. */
export function toModelError(error: unknown, signal?: AbortSignal): Error {
  if (error instanceof ModelCallError || error instanceof AbortedError) return error;
  if (signal?.aborted || error instanceof OpenAI.APIUserAbortError) return new AbortedError('call aborted');
  if (error instanceof OpenAI.APIConnectionTimeoutError) return new ModelCallError('the model server timed out', true, { cause: error });
  if (error instanceof OpenAI.APIConnectionError) return new ModelCallError('cannot reach the model server (check OPENAI_BASE_URL)', true, { cause: error });
  if (error instanceof OpenAI.APIError) {
    const status = error.status ?? 0;
    const detail = redact(String(error.message ?? '').split('\n')[0] ?? '');
    if (status === 401) return new ModelCallError(`401 unauthorised: check OPENAI_API_KEY (${detail})`, false, { status });
    if (status === 404) return new ModelCallError(`404: unknown model or endpoint — check TROUPE_MODEL / the persona's model (${detail})`, false, { status });
    return new ModelCallError(`model server error ${status}: ${detail}`, status === 429 || status >= 500, { status });
  }
  return new ModelCallError(redact(error instanceof Error ? error.message : String(error)), false, { cause: error });
}

import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming, ChatCompletionToolChoiceOption } from 'openai/resources/chat/completions';
import type { ChatModel, ChatRequest, ChatResponse, RetryInfo, ToolChoice } from './chat-model.js';
import { parseBaseUrl } from './base-url.js';
import { boundedFetch, DEFAULT_RESPONSE_LIMITS, type ResponseLimits } from './bounded-fetch.js';
import { AbortedError, ModelCallError } from './errors.js';
import { toModelError, type CallTarget } from './openai-errors.js';
import { loadedOpenAI, loadOpenAI } from './openai-sdk.js';
import { DEFAULT_RETRY_POLICY, withRetries, type RetryPolicy } from './retry.js';
import { StreamAssembler } from './stream-assembler.js';
import { toWireMessages } from './openai-messages.js';

export { toModelError } from './openai-errors.js';
export { redact } from './redact.js';

/** Options for the OpenAI-compatible adapter. */
export interface OpenAIModelOptions {
  apiKey?: string;
  baseURL?: string;
  /** Inject a client (tests, custom fetch). Its own retries are not used: troupe's are the only ones. */
  client?: OpenAI;
  /** Longest wait with no data from the server (before the first byte and between chunks). */
  timeoutMs?: number;
  /** Retries after the first attempt (TROUPE_RETRIES). */
  maxRetries?: number;
  /** Backoff details; tests inject `sleep` and `random`. */
  retry?: Partial<RetryPolicy>;
  /** Told before every retry of every call (a request's own `onRetry` is told too). */
  onRetry?: (info: RetryInfo) => void;
  /** Starts the no-data timer of a request (default: a wall-clock timer of `timeoutMs`); tests give one the server fires. */
  noDataTimer?: NoDataTimer;
  /** How much of one response is read (default DEFAULT_RESPONSE_LIMITS). */
  responseLimits?: ResponseLimits;
}

/**
 * Starts a no-data timer: `onTimeout` runs when the server has sent nothing for `ms`; returns the function
 * that stops it. `request` numbers the requests this model sent, from 0 (a test's server can say when
 * that request went quiet, so no test decides on wall-clock time).
 */
export type NoDataTimer = (onTimeout: () => void, ms: number, request: number) => () => void;

const wallClockTimer: NoDataTimer = (onTimeout, ms) => {
  const timer = setTimeout(onTimeout, ms);
  return () => clearTimeout(timer);
};

// The SDK's own request timeout is only a backstop behind the no-data timer, which is the one that counts.
const SDK_TIMEOUT_BACKSTOP_MS = 60_000;

/** Default no-data timeout: two minutes. */
export const DEFAULT_TIMEOUT_MS = 120_000;

/** Streaming chat model on any OpenAI-compatible server (OpenAI, Azure, OpenRouter, Groq, vLLM, Ollama, LM Studio). */
export class OpenAIChatModel implements ChatModel {
  readonly label: string;
  private client: OpenAI | null;
  private readonly clientOptions: ConstructorParameters<typeof OpenAI>[0];
  private readonly timeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly host: string;
  /** False once the server rejected `stream_options` (then usage comes only if it sends it anyway). */
  private streamUsage = true;
  private readonly onRetry: ((info: RetryInfo) => void) | undefined;
  private readonly noDataTimer: NoDataTimer;
  private sent = 0;

  constructor(options: OpenAIModelOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // fetch refuses a URL with credentials: they travel as a Basic Authorization header instead.
    const base = options.baseURL !== undefined ? parseBaseUrl(options.baseURL) : undefined;
    this.client = options.client ?? null;
    this.host = hostOf(options.baseURL ?? 'https://api.openai.com/v1');
    this.clientOptions = {
      apiKey: options.apiKey ?? 'not-needed',
      fetch: boundedFetch(this.host, options.responseLimits ?? DEFAULT_RESPONSE_LIMITS),
      baseURL: base?.url,
      timeout: this.timeoutMs + SDK_TIMEOUT_BACKSTOP_MS,
      maxRetries: 0,
      logLevel: 'off',
      ...(base?.authorization ? { defaultHeaders: { Authorization: base.authorization } } : {}),
    };
    this.onRetry = options.onRetry;
    this.noDataTimer = options.noDataTimer ?? wallClockTimer;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry, ...(options.maxRetries !== undefined ? { retries: options.maxRetries } : {}) };
    this.label = `openai-compatible ${options.baseURL ? shownUrl(options.baseURL) : 'api.openai.com'}`;
  }

  async preload(): Promise<void> {
    await loadOpenAI();
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted) throw new AbortedError('call aborted');
    const tell = [this.policy.onRetry, this.onRetry && retryTeller(this.onRetry), request.onRetry && retryTeller(request.onRetry)].filter((f) => f !== undefined);
    const policy: RetryPolicy = tell.length
      ? {
          ...this.policy,
          onRetry: (info) => {
            for (const f of tell) f(info);
          },
        }
      : this.policy;
    return withRetries(() => this.attempt(request), policy, request.signal);
  }

  private body(request: ChatRequest): ChatCompletionCreateParamsStreaming {
    return {
      model: request.model,
      messages: toWireMessages(request.messages),
      stream: true,
      ...(this.streamUsage ? { stream_options: { include_usage: true } } : {}),
      ...(request.tools && request.tools.length > 0 && !request.jsonMode
        ? { tools: request.tools.map((t) => ({ type: 'function' as const, function: t })), tool_choice: toolChoiceParam(request.toolChoice) }
        : {}),
      ...(request.jsonMode ? { response_format: { type: 'json_object' as const } } : {}),
      ...(request.maxCompletionTokens !== undefined ? { max_completion_tokens: request.maxCompletionTokens } : {}),
    };
  }

  /** One streamed attempt, guarded by a no-data timer; the caller's signal aborts it. */
  private async attempt(request: ChatRequest): Promise<ChatResponse> {
    const target: CallTarget = { model: request.model, host: this.host };
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const sequence = this.sent++;
    let stop = () => {};
    const arm = () => {
      stop();
      stop = this.noDataTimer(
        () => {
          timedOut = true;
          controller.abort();
        },
        this.timeoutMs,
        sequence,
      );
    };
    const assembler = new StreamAssembler(request.onDelta, this.host);
    const timeout = () =>
      new ModelCallError(
        `the model server at ${this.host} sent nothing for ${this.timeoutMs < 1000 ? `${this.timeoutMs} ms` : `${Math.round(this.timeoutMs / 1000)} s`} (timed out; TROUPE_TIMEOUT_MS)`,
        true,
      );
    try {
      // The SDK loads with the first call, before its no-data timer starts (an injected client's errors are classified with it too).
      const OpenAISdk = loadedOpenAI() ?? (await loadOpenAI());
      this.client ??= new OpenAISdk(this.clientOptions);
      arm();
      const stream = await this.client.chat.completions.create(this.body(request), { signal: controller.signal, maxRetries: 0, timeout: this.timeoutMs + SDK_TIMEOUT_BACKSTOP_MS });
      for await (const chunk of stream) {
        arm();
        assembler.push(chunk);
      }
      // The SDK ends the iteration quietly when aborted, so the cause is checked here.
      if (request.signal?.aborted) throw new AbortedError('call aborted');
      if (timedOut) throw timeout();
      if (!assembler.sawChoice) throw new ModelCallError(`the model server at ${this.host} returned no choices`, true);
      // A server that streams a tool call without its name: with one tool on offer, it can only be that one.
      return assembler.result(request.model, request.tools?.length === 1 && !request.jsonMode ? request.tools[0]!.name : undefined);
    } catch (error) {
      const mapped = request.signal?.aborted ? new AbortedError('call aborted') : timedOut ? timeout() : toModelError(error, request.signal, target);
      if (mapped instanceof ModelCallError && mapped.status === 400 && this.streamUsage && /stream_options/i.test(mapped.message)) {
        this.streamUsage = false;
        return this.attempt(request);
      }
      // A retry would repeat deltas the caller has already shown, so a broken stream fails the turn instead.
      if (mapped instanceof ModelCallError && mapped.retryable && assembler.delivered > 0) {
        throw new ModelCallError(`${mapped.message} (after the answer had started streaming)`, false, { cause: mapped });
      }
      throw mapped;
    } finally {
      stop();
      request.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** The wire form of a tool choice (`{ name }` becomes a named function choice). */
export function toolChoiceParam(choice: ToolChoice = 'auto'): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** Adapts a RetryInfo listener to the retry policy's hook. */
function retryTeller(listener: (info: RetryInfo) => void): NonNullable<RetryPolicy['onRetry']> {
  return ({ attempt, delayMs, error }) => listener({ attempt, waitMs: delayMs, reason: error.message });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** A base URL as shown in labels and files: host and path only (no credentials or query). */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, '')}`;
  } catch {
    return '(invalid base URL)';
  }
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrefixCache, promptTokensOf, renderPrompt, type PrefixCacheOptions, BYTES_PER_TOKEN } from './prefix-cache.js';

/** How long the modelled server takes: time to first token = base + per uncached prompt token; then per output token. */
export interface LatencyModel {
  baseMs: number;
  perUncachedTokenMs: number;
  perOutputTokenMs: number;
}

/** What the server answers to one request: text, and optionally one tool call. */
export interface CachingAnswer {
  text: string;
  toolCall?: { name: string; arguments: string };
}

/** A chat request as the server received it (its JSON body). */
export type ChatBody = {
  model?: string;
  messages?: { role?: unknown; content?: unknown }[];
  tools?: { function?: { name?: string } }[];
  stream?: boolean;
  max_completion_tokens?: number;
  max_tokens?: number;
  response_format?: unknown;
};

/** One request the server served, with what its cache gave it and when. */
export interface ServedRequest {
  body: ChatBody;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** Modelled time to first token, ms. */
  ttftMs: number;
  /** Cut short by `max_completion_tokens` / `max_tokens` (a cache-warming request asks for one token). */
  limited: boolean;
  /** The client went away before the answer was complete. */
  aborted: boolean;
  /** When it arrived and when its prefill was done (its blocks cached), on the server's clock. */
  arrivedAt: number;
  prefilledAt: number | null;
}

/** Options of the caching server. */
export interface CachingServerOptions {
  cache: PrefixCacheOptions;
  latency: LatencyModel;
  /** The scripted answer to a request (called once the prefill is done). */
  answer: (body: ChatBody, index: number) => CachingAnswer;
  /** Clock for the cache (default: performance.now). */
  now?: () => number;
  /** Waits the modelled time (default: a timer; tests with a zero latency never wait). */
  sleep?: (ms: number) => Promise<void>;
  /** Text pieces per streamed chunk, in tokens (default 16). */
  chunkTokens?: number;
  /** Holds a full answer after its first chunk until this settles (tests: the client has begun, nothing else is timed). */
  hold?: (body: ChatBody, index: number) => Promise<void>;
}

const timer = (ms: number) => (ms <= 0 ? Promise.resolve() : new Promise<void>((r) => setTimeout(r, ms)));

/**
 * A local OpenAI-compatible server (127.0.0.1 only) that models prompt caching the way OpenAI, vLLM and
 * llama.cpp do: a prefix cache of whole blocks keyed by exact bytes, with a TTL (see PrefixCache); the
 * time to first token is `base + perUncachedToken x uncached prompt tokens`, then the answer streams at
 * `perOutputToken`; usage reports `prompt_tokens_details.cached_tokens`. A prompt's blocks enter the
 * cache when its prefill is done (a request that arrives earlier does not share it). Answers come from
 * a script function; `max_completion_tokens` (or `max_tokens`) cuts the answer (finish_reason `length`).
 */
export class CachingOpenAIServer {
  readonly served: ServedRequest[] = [];
  readonly cache: PrefixCache;
  private server: Server | null = null;
  private count = 0;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: CachingServerOptions) {
    this.cache = new PrefixCache(options.cache, options.now);
    this.sleep = options.sleep ?? timer;
  }

  /** Base URL including /v1, valid after start(). */
  get baseURL(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('CachingOpenAIServer: not started');
    return `http://127.0.0.1:${address.port}/v1`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = null;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    let body: ChatBody;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8')) as ChatBody;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'body is not JSON' } }));
      return;
    }
    const index = this.count++;
    const lookup = this.cache.lookup(renderPrompt(body));
    const uncached = lookup.promptTokens - lookup.cachedTokens;
    const { baseMs, perUncachedTokenMs, perOutputTokenMs } = this.options.latency;
    const ttftMs = baseMs + perUncachedTokenMs * uncached;
    const limit = body.max_completion_tokens ?? body.max_tokens;
    const now = this.options.now ?? (() => performance.now());
    const record: ServedRequest = {
      body,
      promptTokens: lookup.promptTokens,
      cachedTokens: lookup.cachedTokens,
      completionTokens: 0,
      ttftMs,
      limited: false,
      aborted: false,
      arrivedAt: now(),
      prefilledAt: null,
    };
    this.served.push(record);
    let gone = false;
    res.on('close', () => {
      if (!res.writableFinished) gone = record.aborted = true;
    });
    await this.sleep(ttftMs);
    // The prefill is done (the server has computed these blocks) even when the client has gone meanwhile.
    this.cache.insert(lookup);
    record.prefilledAt = now();
    if (gone) return;
    const answer = this.options.answer(body, index);
    const tokens = Math.max(1, Math.ceil(Buffer.byteLength(answer.text + (answer.toolCall?.arguments ?? ''), 'utf8') / BYTES_PER_TOKEN));
    const cut = limit !== undefined && limit < tokens;
    const completionTokens = cut ? limit : tokens;
    record.completionTokens = completionTokens;
    record.limited = cut;
    const usage = {
      prompt_tokens: lookup.promptTokens,
      completion_tokens: completionTokens,
      total_tokens: lookup.promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: lookup.cachedTokens },
    };
    const base = { id: `chatcmpl-${index}`, object: 'chat.completion.chunk', created: 0, model: body.model ?? 'cache-model' };
    const send = (choice: unknown, extra: object = {}) => res.write(`data: ${JSON.stringify({ ...base, choices: choice ? [choice] : [], ...extra })}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // An answer with a limit (a warming request asks for one token) comes in one piece, never held.
    if (limit !== undefined) {
      send({ index: 0, delta: { role: 'assistant', content: answer.text.slice(0, completionTokens * BYTES_PER_TOKEN) }, finish_reason: cut ? 'length' : 'stop' });
      send(null, { usage });
      res.end('data: [DONE]\n\n');
      return;
    }
    const step = (this.options.chunkTokens ?? 16) * BYTES_PER_TOKEN;
    send({ index: 0, delta: { role: 'assistant', content: answer.text.slice(0, step) }, finish_reason: null });
    await this.options.hold?.(body, index);
    if (gone) return;
    for (let at = step; at < answer.text.length; at += step) {
      await this.sleep(perOutputTokenMs * (step / BYTES_PER_TOKEN));
      if (gone) return;
      send({ index: 0, delta: { content: answer.text.slice(at, at + step) }, finish_reason: null });
    }
    if (answer.toolCall) {
      await this.sleep(perOutputTokenMs * Math.ceil(answer.toolCall.arguments.length / BYTES_PER_TOKEN));
      if (gone) return;
      send({ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: answer.toolCall.name, arguments: answer.toolCall.arguments } }] }, finish_reason: null });
    }
    send({ index: 0, delta: {}, finish_reason: answer.toolCall ? 'tool_calls' : 'stop' });
    send(null, { usage });
    res.end('data: [DONE]\n\n');
  }
}

export { promptTokensOf, renderPrompt };

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** A recorded request to the fake server. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** Set once the client went away before the answer was complete (the call was aborted). */
  hungUp?: boolean;
}

/** What the fake server answers to one request. */
export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** JSON body for a non-streamed answer (or an error body). */
  body?: unknown;
  /** Raw SSE `data:` payloads for a streamed answer (objects are JSON-encoded; "[DONE]" is appended). */
  stream?: (unknown | string)[];
  /** Wait before answering (ms); lets tests abort or time out. */
  delayMs?: number;
  /** Wait between streamed chunks (ms). */
  chunkDelayMs?: number;
  /** Drop the connection after this many streamed chunks (no [DONE]). */
  hangUpAfter?: number;
  /** Leave the stream open after the chunks, sending nothing more (for timeouts). */
  stall?: boolean;
}

/** Streamed chunks for a reply: text in pieces, then a tool call (handoff_directive unless `toolName` says) whose arguments arrive in pieces, then usage. */
export function streamChunks(
  text: string,
  directive?: Record<string, unknown> | string,
  options: { usage?: { prompt_tokens: number; completion_tokens: number } | null; pieces?: number; model?: string; finishReason?: string; toolName?: string; toolCallId?: string } = {},
): unknown[] {
  const pieces = options.pieces ?? 3;
  const split = (s: string) => {
    const size = Math.max(1, Math.ceil(s.length / pieces));
    const out: string[] = [];
    for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
    return out;
  };
  const base = { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 0, model: options.model ?? 'test-model' };
  const chunk = (delta: unknown, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of split(text)) chunks.push(chunk({ content: piece }));
  if (directive !== undefined) {
    const args = typeof directive === 'string' ? directive : JSON.stringify(directive);
    chunks.push(chunk({ tool_calls: [{ index: 0, id: options.toolCallId ?? 'call_1', type: 'function', function: { name: options.toolName ?? 'handoff_directive', arguments: '' } }] }));
    for (const piece of split(args)) chunks.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  }
  chunks.push(chunk({}, options.finishReason ?? (directive !== undefined ? 'tool_calls' : 'stop')));
  const usage = options.usage === undefined ? { prompt_tokens: 50, completion_tokens: 20 } : options.usage;
  if (usage) chunks.push({ ...base, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
  return chunks;
}

/** A reply, or a function of the request producing one (a promise holds the answer back until it settles). */
export type FakeHandler = FakeReply | ((req: RecordedRequest) => FakeReply | Promise<FakeReply>);

/** A completion body carrying text and, optionally, a handoff_directive tool call. */
export function completion(text: string, directive?: Record<string, unknown>, usage = { prompt_tokens: 50, completion_tokens: 20 }): unknown {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model: 'test-model',
    choices: [
      {
        index: 0,
        finish_reason: directive ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: text,
          ...(directive ? { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'handoff_directive', arguments: JSON.stringify(directive) } }] } : {}),
        },
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** A local OpenAI-compatible server (127.0.0.1 only) answering from a script; fails loudly past its end. */
export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  private server: Server | null = null;
  private next = 0;
  private readonly quiet = new Set<number>();
  private readonly quietWaiters: { index: number; resolve: () => void }[] = [];

  constructor(private readonly script: FakeHandler[] | ((req: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>)) {}

  /** Base URL including /v1, valid after start(). */
  get baseURL(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('FakeOpenAIServer: not started');
    return `http://127.0.0.1:${address.port}/v1`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
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

  /** Resolves once request `index` (from 0, in arrival order) went quiet: its reply is delayed, or its stream stalled. */
  wentQuiet(index: number): Promise<void> {
    if (this.quiet.has(index)) return Promise.resolve();
    return new Promise((resolve) => this.quietWaiters.push({ index, resolve }));
  }

  /**
   * A no-data timer for an OpenAIChatModel on this server: it fires when the model's request went quiet here,
   * never on wall-clock time, so timeout tests hold on a loaded machine.
   */
  noDataTimer(): (onTimeout: () => void, ms: number, request: number) => () => void {
    return (onTimeout, _ms, request) => {
      let armed = true;
      void this.wentQuiet(request).then(() => {
        if (armed) onTimeout();
      });
      return () => {
        armed = false;
      };
    };
  }

  private markQuiet(index: number): void {
    this.quiet.add(index);
    for (const w of this.quietWaiters.filter((x) => x.index === index)) {
      this.quietWaiters.splice(this.quietWaiters.indexOf(w), 1);
      w.resolve();
    }
  }

  private replyFor(recorded: RecordedRequest): FakeReply | Promise<FakeReply> {
    const index = this.next++;
    if (typeof this.script === 'function') return this.script(recorded, index);
    const handler = this.script[index];
    if (!handler) return { status: 500, body: { error: { message: `FakeOpenAIServer: script exhausted at request #${index + 1}` } } };
    return typeof handler === 'function' ? handler(recorded) : handler;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // keep raw text
    }
    const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
    const index = this.requests.push(recorded) - 1;
    res.once('close', () => {
      if (!res.writableFinished) recorded.hungUp = true;
    });
    const reply = asStreamIfAsked(await this.replyFor(recorded), recorded);
    if (reply.delayMs) {
      this.markQuiet(index);
      await new Promise((r) => setTimeout(r, reply.delayMs));
    }
    if (res.destroyed) return;
    if (reply.stream) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', ...reply.headers });
      for (const [i, chunk] of reply.stream.entries()) {
        if (res.destroyed) return;
        if (reply.hangUpAfter !== undefined && i >= reply.hangUpAfter) {
          res.destroy();
          return;
        }
        res.write(`data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`);
        if (reply.chunkDelayMs) await new Promise((r) => setTimeout(r, reply.chunkDelayMs));
      }
      if (reply.stall) return this.markQuiet(index);
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(reply.body ?? {}));
  }
}

/** A completion body answered to a streaming request is sent as the equivalent SSE chunks, as a real server would. */
function asStreamIfAsked(reply: FakeReply, req: RecordedRequest): FakeReply {
  const wantsStream = (req.body as { stream?: boolean } | undefined)?.stream === true;
  const body = reply.body as
    | {
        choices?: { message?: { content?: string | null; tool_calls?: { id?: string; function: { name: string; arguments: string } }[] }; finish_reason?: string }[];
        usage?: { prompt_tokens: number; completion_tokens: number };
      }
    | undefined;
  const choice = body?.choices?.[0];
  if (!wantsStream || reply.stream || (reply.status ?? 200) !== 200 || !choice?.message) return reply;
  const call = choice.message.tool_calls?.[0];
  const args = call?.function.arguments;
  const { body: _body, ...rest } = reply;
  return {
    ...rest,
    stream: streamChunks(choice.message.content ?? '', args, {
      usage: body?.usage ? { prompt_tokens: body.usage.prompt_tokens, completion_tokens: body.usage.completion_tokens } : null,
      ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
      ...(call ? { toolName: call.function.name, ...(call.id ? { toolCallId: call.id } : {}) } : {}),
    }),
  };
}

/** For a test file: returns `serve(script)`, which starts a fake server that is stopped after each test. */
export function fakeServerPerTest(): (script: FakeHandler[]) => Promise<FakeOpenAIServer> {
  let server: FakeOpenAIServer | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
  });
  return async (script) => {
    server = await new FakeOpenAIServer(script).start();
    return server;
  };
}

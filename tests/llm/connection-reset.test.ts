import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { streamChunks } from '../helpers/fake-openai-server.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { modelFromEnv } from '../../src/llm/from-env.js';
import { maskUrl, parseBaseUrl } from '../../src/llm/base-url.js';
import type { ChatRequest, RetryInfo } from '../../src/llm/chat-model.js';
import { ModelCallError, UserError } from '../../src/llm/errors.js';

type Fault = 'reset-after-headers' | 'reset-before-headers' | 'reset-after-text' | 'ok';

/** A 127.0.0.1 server that answers each request with the next fault: a TCP reset at some point, or a good stream. */
class ResettingServer {
  readonly requests: IncomingMessage[] = [];
  private server: Server | null = null;

  constructor(private readonly faults: Fault[]) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.requests.push(req);
      const fault = this.faults[this.requests.length - 1] ?? 'ok';
      req.resume();
      req.on('end', () => {
        const socket = res.socket!;
        if (fault === 'reset-before-headers') return void socket.resetAndDestroy();
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (fault === 'reset-after-headers') {
          res.flushHeaders();
          return void setImmediate(() => socket.resetAndDestroy());
        }
        const chunks = streamChunks('the answer', { transition: 'COMPLETE' });
        if (fault === 'reset-after-text') {
          res.write(`data: ${JSON.stringify(chunks[1])}\n\n`);
          return void setImmediate(() => socket.resetAndDestroy());
        }
        for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
        res.end('data: [DONE]\n\n');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

let running: ResettingServer | null = null;
afterEach(async () => {
  await running?.stop();
  running = null;
});

async function serve(faults: Fault[]): Promise<{ server: ResettingServer; baseURL: string }> {
  running = new ResettingServer(faults);
  return { server: running, baseURL: await running.start() };
}

const request = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], meta: { purpose: 'persona', persona: 'ceo' }, ...extra });
const quick = { sleep: async () => {}, random: () => 0.5, baseDelayMs: 100 };

describe('connection resets and retries (issue 10, item 12)', () => {
  it('retries a connection reset after the headers, before any text (was: "terminated", no retry)', async () => {
    const { server, baseURL } = await serve(['reset-after-headers', 'ok']);
    const model = new OpenAIChatModel({ baseURL, apiKey: 'k', maxRetries: 2, retry: quick });
    expect((await model.generate(request())).text).toBe('the answer');
    expect(server.requests).toHaveLength(2);
  });

  it('tells each retry, with its number, its wait and the reason, to the request and the model hooks', async () => {
    const { baseURL } = await serve(['reset-after-headers', 'reset-before-headers', 'ok']);
    const perRequest: RetryInfo[] = [];
    const perModel: RetryInfo[] = [];
    const model = new OpenAIChatModel({ baseURL, apiKey: 'k', maxRetries: 3, retry: quick, onRetry: (i) => perModel.push(i) });
    await model.generate(request({ onRetry: (i) => perRequest.push(i) }));
    expect(perRequest).toEqual([
      { attempt: 1, waitMs: 75, reason: expect.stringMatching(/^the connection to the model server at 127\.0\.0\.1:\d+ was reset \((ECONNRESET|UND_ERR_SOCKET)\)$/) },
      { attempt: 2, waitMs: 150, reason: expect.stringMatching(/was reset \(ECONNRESET\)$/) },
    ]);
    expect(perModel).toEqual(perRequest);
  });

  it('does not retry a reset after text was shown, and says so in one line', async () => {
    const { server, baseURL } = await serve(['reset-after-text', 'ok']);
    const model = new OpenAIChatModel({ baseURL, apiKey: 'k', maxRetries: 2, retry: quick });
    const error = await model.generate(request({ onDelta: () => {} })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as Error).message).toMatch(/was reset \((ECONNRESET|UND_ERR_SOCKET)\) \(after the answer had started streaming\)$/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('a base URL with credentials (issue 10, item 12)', () => {
  it('moves user and password to a Basic Authorization header (fetch refuses them in the URL)', async () => {
    const { server, baseURL } = await serve(['ok']);
    const withCredentials = baseURL.replace('http://', 'http://keeper:p%40ss%3Aword@');
    const model = modelFromEnv({ OPENAI_BASE_URL: withCredentials });
    expect(model.label).toBe(`openai-compatible ${baseURL}`);
    expect((await model.generate(request({ tools: [] }))).text).toBe('the answer');
    expect(server.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('keeper:p@ss:word').toString('base64')}`);
  });

  it('refuses credentials together with OPENAI_API_KEY, and never echoes a password', () => {
    const secret = 'hunter2-secret';
    expect(() => modelFromEnv({ OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: `https://user:${secret}@llm.example.com/v1` })).toThrow(
      /^OPENAI_BASE_URL carries a user name and password and OPENAI_API_KEY is set/,
    );
    for (const bad of [`http://user:${secret}@bad host/v1`, `user:${secret}@llm.example.com/v1`, `ftp://user:${secret}@llm.example.com/v1`]) {
      const error = (() => {
        try {
          modelFromEnv({ OPENAI_BASE_URL: bad });
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(error, bad).toBeInstanceOf(UserError);
      expect((error as Error).message, bad).not.toContain(secret);
      expect((error as Error).message, bad).toMatch(/^OPENAI_BASE_URL "[^"]*\*\*\*@[^"]*" (is not a URL|must start with http:\/\/ or https:\/\/)/);
    }
  });

  it('masks credentials in any text and leaves URLs without them alone', () => {
    expect(maskUrl('http://a:b@h/v1')).toBe('http://***@h/v1');
    expect(maskUrl('a:b@h:80/v1')).toBe('***@h:80/v1');
    expect(maskUrl('http://h/v1?x=a@b')).toBe('http://h/v1?x=a@b');
    expect(parseBaseUrl('http://127.0.0.1:11434/v1')).toEqual({ url: 'http://127.0.0.1:11434/v1' });
  });
});

import { describe, expect, it } from 'vitest';
import { fakeServerPerTest, streamChunks, type FakeHandler, type FakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import type { ChatRequest } from '../../src/llm/chat-model.js';
import { ModelCallError } from '../../src/llm/errors.js';

const KEY = 'sk-proj-SECRETsecretSECRET1234567890';
const serve = fakeServerPerTest();

function setup(s: FakeOpenAIServer, retries = 2, timeoutMs?: number) {
  const sleeps: number[] = [];
  const model = new OpenAIChatModel({
    baseURL: s.baseURL,
    apiKey: KEY,
    maxRetries: retries,
    // A timeout test's timer fires when the server went quiet, not after a wall-clock wait a loaded machine may overrun.
    ...(timeoutMs ? { timeoutMs, noDataTimer: s.noDataTimer() } : {}),
    retry: { sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, baseDelayMs: 100, maxDelayMs: 1000 },
  });
  return { model, sleeps };
}

const request: ChatRequest = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], meta: { purpose: 'persona', persona: 'ceo' } };
const ok = (): FakeHandler => ({ stream: streamChunks('ok', { transition: 'COMPLETE' }) });
const err = (status: number, message: string, headers?: Record<string, string>): FakeHandler => ({ status, body: { error: { message } }, ...(headers ? { headers } : {}) });

async function failure(p: Promise<unknown>): Promise<ModelCallError> {
  const e = await p.catch((x: unknown) => x);
  expect(e).toBeInstanceOf(ModelCallError);
  const error = e as ModelCallError;
  expect(error.message).not.toContain('\n');
  expect(error.message).not.toContain('SECRET');
  return error;
}

describe('OpenAIChatModel faults', () => {
  it('retries a 429 then succeeds, honouring retry-after-ms', async () => {
    const s = await serve([err(429, 'Rate limit reached', { 'retry-after-ms': '1234' }), ok()]);
    const { model, sleeps } = setup(s);
    expect((await model.generate(request)).text).toBe('ok');
    expect(sleeps).toEqual([1234]);
    expect(s.requests.length).toBe(2);
  });

  it('honours retry-after in seconds, and backs off exponentially with jitter without it', async () => {
    const s = await serve([err(429, 'slow down', { 'retry-after': '2' }), err(503, 'overloaded'), err(502, 'bad gateway'), ok()]);
    const { model, sleeps } = setup(s, 3);
    expect((await model.generate(request)).text).toBe('ok');
    // 2 s from the header, then base 100 ms doubled (200, 400) with random 0.5 -> 3/4 of each step.
    expect(sleeps).toEqual([2000, 150, 300]);
  });

  it('retries a 500 until the retries run out, then fails in one line saying so', async () => {
    const s = await serve([err(500, 'boom'), err(500, 'boom'), err(500, 'boom'), ok()]);
    const { model, sleeps } = setup(s, 2);
    const error = await failure(model.generate(request));
    expect(error.message).toBe('model server error 500: boom (after 2 retries)');
    expect(error.retryable).toBe(false);
    expect(sleeps.length).toBe(2);
    expect(s.requests.length).toBe(3);
  });

  it('times out a server that never answers, retries, then reports the timeout', async () => {
    const s = await serve([{ delayMs: 1500, body: {} }, { stream: streamChunks('late', undefined).slice(0, 1), stall: true }, ok()]);
    const { model } = setup(s, 1, 80);
    const error = await failure(model.generate(request));
    expect(error.message).toMatch(/^the model server at 127\.0\.0\.1:\d+ sent nothing for 80 ms \(timed out; TROUPE_TIMEOUT_MS\) \(after 1 retry\)$/);
    expect(s.requests.length).toBe(2);
  });

  it('a stalled stream times out too and is retried when nothing was shown yet', async () => {
    const s = await serve([{ stream: streamChunks('x', undefined).slice(0, 1), stall: true }, ok()]);
    const { model } = setup(s, 1, 80);
    expect((await model.generate(request)).text).toBe('ok');
  });

  it('401: one line, no retry, no key in the message', async () => {
    const s = await serve([err(401, `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com.`), ok()]);
    const { model } = setup(s);
    const error = await failure(model.generate(request));
    expect(error.message).toMatch(/^401 unauthorised at 127\.0\.0\.1:\d+: the API key was rejected — check OPENAI_API_KEY$/);
    expect(s.requests.length).toBe(1);
    expect(s.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('404: names the unknown model and how to fix it', async () => {
    const s = await serve([err(404, 'The model `gpt-test` does not exist or you do not have access to it.')]);
    const { model } = setup(s);
    const error = await failure(model.generate(request));
    expect(error.message).toMatch(/^404 unknown model "gpt-test" at 127\.0\.0\.1:\d+ — check TROUPE_MODEL/);
    expect(error.retryable).toBe(false);
  });

  it('a quota 429 is not retried', async () => {
    const s = await serve([{ status: 429, body: { error: { message: 'You exceeded your current quota', code: 'insufficient_quota' } } }, ok()]);
    const { model } = setup(s);
    expect((await failure(model.generate(request))).message).toMatch(/^429 quota exceeded/);
    expect(s.requests.length).toBe(1);
  });

  it('an unreachable base URL is retried, then named in one line', async () => {
    const s = await serve([]);
    const baseURL = s.baseURL;
    await s.stop();
    const sleeps: number[] = [];
    const model = new OpenAIChatModel({ baseURL, apiKey: KEY, maxRetries: 1, retry: { sleep: async (ms) => void sleeps.push(ms) } });
    const error = await failure(model.generate(request));
    expect(error.message).toMatch(/^cannot reach the model server at 127\.0\.0\.1:\d+ — check OPENAI_BASE_URL and that the server is running \(after 1 retry\)$/);
    expect(sleeps.length).toBe(1);
  });

  it('a connection dropped before any delta is retried', async () => {
    const s = await serve([{ stream: streamChunks('never shown', undefined), hangUpAfter: 1 }, ok()]);
    const { model } = setup(s);
    expect((await model.generate(request)).text).toBe('ok');
    expect(s.requests.length).toBe(2);
  });

  it('a retry-after longer than the cap fails at once with the wait in the message', async () => {
    const s = await serve([err(429, 'try tomorrow', { 'retry-after': '86400' }), ok()]);
    const { model, sleeps } = setup(s);
    expect((await failure(model.generate(request))).message).toMatch(/the server asks to retry after 86400 s\)$/);
    expect(sleeps).toEqual([]);
  });

  it('the SDK makes no retries of its own', async () => {
    const s = await serve([err(500, 'a'), err(500, 'b'), err(500, 'c')]);
    const { model } = setup(s, 0);
    expect((await failure(model.generate(request))).message).toBe('model server error 500: a');
    expect(s.requests.length).toBe(1);
  });
});

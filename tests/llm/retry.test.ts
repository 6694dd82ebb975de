import { describe, expect, it } from 'vitest';
import { abortableSleep, backoffDelay, DEFAULT_RETRY_POLICY, withRetries } from '../../src/llm/retry.js';
import { AbortedError, ModelCallError } from '../../src/llm/errors.js';
import { retryAfterMs } from '../../src/llm/openai-errors.js';

const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 500 };

describe('backoffDelay', () => {
  it('doubles per retry, is capped, and jitters between half and all of the step', () => {
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, { ...policy, random: () => 0 }))).toEqual([50, 100, 200, 250]);
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, { ...policy, random: () => 1 }))).toEqual([100, 200, 400, 500]);
  });

  it("uses the server's retry-after when given", () => {
    expect(backoffDelay(3, policy, 0)).toBe(0);
    expect(backoffDelay(1, policy, 4200)).toBe(4200);
  });
});

describe('retryAfterMs', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '1.5' }))).toBe(1500);
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), () => now)).toBe(7000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe('withRetries', () => {
  it('retries only retryable model errors', async () => {
    let calls = 0;
    const sleeps: number[] = [];
    const run = withRetries(
      async () => {
        calls += 1;
        throw new ModelCallError('bad request', false, { status: 400 });
      },
      { ...policy, sleep: async (ms) => void sleeps.push(ms) },
    );
    await expect(run).rejects.toThrow('bad request');
    expect(calls).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('stops waiting when the signal aborts during a backoff', async () => {
    const controller = new AbortController();
    let calls = 0;
    const run = withRetries(
      async () => {
        calls += 1;
        setTimeout(() => controller.abort(), 5);
        throw new ModelCallError('busy', true, { status: 503 });
      },
      { ...policy, baseDelayMs: 60_000, maxDelayMs: 60_000 },
      controller.signal,
    );
    await expect(run).rejects.toBeInstanceOf(AbortedError);
    expect(calls).toBe(1);
  });

  it('tells onRetry about each wait', async () => {
    const seen: number[] = [];
    let calls = 0;
    const value = await withRetries(
      async () => {
        calls += 1;
        if (calls < 3) throw new ModelCallError('busy', true, { status: 503, retryAfterMs: calls * 10 });
        return 'done';
      },
      { ...policy, sleep: async () => {}, onRetry: (i) => seen.push(i.delayMs) },
    );
    expect(value).toBe('done');
    expect(seen).toEqual([10, 20]);
  });

  it('abortableSleep rejects at once on an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(abortableSleep(10_000, controller.signal)).rejects.toBeInstanceOf(AbortedError);
  });
});

describe('redact', () => {
  it('hides key-like tokens and bearer values, and leaves ordinary words alone', async () => {
    const { redactorFrom } = await import('../../src/llm/redact.js');
    const redact = redactorFrom({ OPENAI_API_KEY: 'exact-configured-key-123' });
    expect(redact('key sk-proj-abcdefghijklmnopqrstuvwxyz0123 rest')).toBe('key sk-proj-[redacted] rest');
    expect(redact('Authorization: Bearer abc.def.ghi.jkl9')).toBe('Authorization: Bearer [redacted]');
    expect(redact('the server said exact-configured-key-123 is wrong')).toBe('the server said [redacted] is wrong');
    expect(redact('a risk-assessment-framework for the task-management-subsystem')).toBe('a risk-assessment-framework for the task-management-subsystem');
    // Never eats JSON structure: quotes and backslashes end a bearer value.
    expect(redact('{"a":"Bearer abcdefghij0","b":1}')).toBe('{"a":"Bearer [redacted]","b":1}');
  });
});

import { abortableSleep } from './sleep.js';

export { abortableSleep };
import { AbortedError, ModelCallError } from './errors.js';

/** How a model call is retried: count, backoff and (for tests) the sleep and randomness. */
export interface RetryPolicy {
  /** Retries after the first attempt (0 disables retrying). */
  retries: number;
  /** First backoff step; doubled each retry. */
  baseDelayMs: number;
  /** Cap on one backoff wait. */
  maxDelayMs: number;
  /** A server's retry-after above this is not waited for: the call fails at once with that wait in the message. */
  maxRetryAfterMs: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Told before each wait (a UI can show "retrying in 2 s"). */
  onRetry?: (info: { attempt: number; delayMs: number; error: ModelCallError }) => void;
}

/** Defaults: 3 retries, 500 ms doubling to at most 8 s, retry-after honoured up to 60 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

/** Wait before retry number `attempt` (1-based): the server's retry-after, else exponential backoff with equal jitter. */
export function backoffDelay(attempt: number, policy: RetryPolicy, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return retryAfterMs;
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const random = policy.random ?? Math.random;
  return Math.round(step / 2 + random() * (step / 2));
}

/** Runs `fn`, retrying retryable ModelCallErrors with backoff; the last error names how many retries were made. */
export async function withRetries<T>(fn: (attempt: number) => Promise<T>, policy: RetryPolicy, signal?: AbortSignal): Promise<T> {
  const sleep = policy.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (!(error instanceof ModelCallError) || !error.retryable) throw error;
      if (signal?.aborted) throw new AbortedError('call aborted');
      const made = attempt - 1;
      if (made >= policy.retries) {
        throw made === 0
          ? error
          : new ModelCallError(`${error.message} (after ${made} ${made === 1 ? 'retry' : 'retries'})`, false, { cause: error, ...(error.status !== undefined ? { status: error.status } : {}) });
      }
      if (error.retryAfterMs !== undefined && error.retryAfterMs > policy.maxRetryAfterMs) {
        throw new ModelCallError(`${error.message} (the server asks to retry after ${Math.ceil(error.retryAfterMs / 1000)} s)`, false, { cause: error });
      }
      const delayMs = backoffDelay(attempt, policy, error.retryAfterMs);
      policy.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs, signal);
    }
  }
}

import { AbortedError } from './errors.js';

/** Waits `ms`, rejecting with AbortedError when the signal fires. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError('call aborted'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError('call aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

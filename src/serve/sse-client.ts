/** How much a slow reader may fall behind before it is dropped (sessions never wait for a reader). */
export const MAX_QUEUED_EVENTS = 2_000;

/**
 * A queue between a session's events (pushed synchronously, never blocking) and one SSE reader (drained
 * as fast as the connection takes them). A reader that falls more than MAX_QUEUED_EVENTS behind is dropped.
 */
export class SseClient<T = unknown> {
  private queue: T[] = [];
  private wake: (() => void) | null = null;
  dropped = false;
  closed = false;

  constructor(private readonly limit = MAX_QUEUED_EVENTS) {}

  /** Queues an event; drops the reader when it is too far behind. */
  push(e: T): void {
    if (this.closed || this.dropped) return;
    if (this.queue.length >= this.limit) {
      this.dropped = true;
      this.queue = [];
    } else this.queue.push(e);
    if (this.wake) {
      const wake = this.wake;
      this.wake = null;
      wake();
    }
  }

  /** Ends the stream (the reader left, or the server stops). */
  close(): void {
    this.closed = true;
    this.wake?.();
  }

  /** The next events to send, waiting for one when none is queued; empty when the stream is over. */
  async next(): Promise<T[]> {
    while (this.queue.length === 0 && !this.closed && !this.dropped) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = null;
    if (this.closed || this.dropped) return [];
    const batch = this.queue;
    this.queue = [];
    return batch;
  }
}

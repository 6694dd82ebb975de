import type { TroupeEvent } from '../../engine/event-map.js';
import { MAX_QUEUED_EVENTS } from '../sse-client.js';

/**
 * A queue between a session's events (pushed synchronously, never blocking) and one SSE reader (drained
 * as fast as the connection takes them). A reader that falls more than MAX_QUEUED_EVENTS behind is dropped.
 */
export class EventQueue {
  private readonly queue: TroupeEvent[] = [];
  private wake: (() => void) | null = null;
  dropped = false;
  closed = false;

  constructor(private readonly limit = MAX_QUEUED_EVENTS) {}

  /** Queues an event; drops the reader when it is too far behind. */
  push(e: TroupeEvent): void {
    if (this.closed || this.dropped) return;
    if (this.queue.length >= this.limit) {
      this.dropped = true;
      this.queue.length = 0;
    } else this.queue.push(e);
    this.wake?.();
  }

  /** Ends the stream (the reader left, or the server stops). */
  close(): void {
    this.closed = true;
    this.wake?.();
  }

  /** The events queued now, without waiting (empty when none is, or the stream is over). */
  take(): TroupeEvent[] {
    return this.closed || this.dropped ? [] : this.queue.splice(0);
  }

  /** The next events to send, waiting for one when none is queued; empty when the stream is over. */
  async next(): Promise<TroupeEvent[]> {
    while (this.queue.length === 0 && !this.closed && !this.dropped) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = null;
    if (this.closed || this.dropped) return [];
    return this.queue.splice(0);
  }
}

import type { TroupeEvent } from '../../engine/event-map.js';
import type { LiveTarget } from './records.js';

const BATCH_MS = 25;
const BATCH_MAX = 64;
const SEND_TIMEOUT_MS = 2_000;
/** Longest a session waits, at a quiet point, for its live events to reach the serve process before it writes on. */
export const LIVE_WAIT_MS = 250;

/**
 * Pushes a session's streaming deltas from the worker to the serve process that reads it (best-effort: live
 * only, never stored; a lost batch only means the reader sees the final message without its pieces). Deltas
 * are batched per target for a few milliseconds, each batch one POST carrying the target's token.
 */
export class LiveSender {
  private readonly queues = new Map<string, { target: LiveTarget; events: TroupeEvent[]; sessions: Set<string>; timer: NodeJS.Timeout }>();
  /** Each push not answered yet, with the sessions whose events it carries. */
  private readonly inFlight = new Map<Promise<void>, ReadonlySet<string>>();

  constructor(private readonly doFetch: typeof fetch = fetch) {}

  /** Queues one delta for a target. */
  push(target: LiveTarget, e: TroupeEvent): void {
    const key = `${target.url} ${target.token}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { target, events: [], sessions: new Set(), timer: setTimeout(() => this.flush(key), BATCH_MS) };
      this.queues.set(key, queue);
    }
    queue.events.push(e);
    queue.sessions.add(e.session_id);
    if (queue.events.length >= BATCH_MAX) this.flush(key);
  }

  /** Sends every queued batch now (a worker stopping). */
  flushAll(): void {
    for (const key of [...this.queues.keys()]) this.flush(key);
  }

  /**
   * Sends the queued batches holding a session's events now and waits (at most `maxWaitMs`) until every push
   * carrying its events has been answered; other sessions' pushes are not waited for. A session calls it before it
   * writes its next events: a reader then gets the live events (a prediction, the last deltas) before the stored
   * ones that follow them, and never after the turn they belong to has ended.
   */
  async delivered(session: string, maxWaitMs = LIVE_WAIT_MS): Promise<void> {
    for (const [key, queue] of [...this.queues]) if (queue.sessions.has(session)) this.flush(key);
    const pushes = [...this.inFlight].filter(([, sessions]) => sessions.has(session)).map(([push]) => push);
    if (pushes.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(pushes), new Promise<void>((resolve) => (timer = setTimeout(resolve, maxWaitMs)))]);
    clearTimeout(timer);
  }

  private flush(key: string): void {
    const queue = this.queues.get(key);
    if (!queue) return;
    this.queues.delete(key);
    clearTimeout(queue.timer);
    const push: Promise<void> = this.doFetch(queue.target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${queue.target.token}` },
      body: JSON.stringify({ events: queue.events }),
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    })
      .then(
        (response) => response.body?.cancel(),
        () => undefined,
      )
      .finally(() => this.inFlight.delete(push));
    this.inFlight.set(push, queue.sessions);
  }
}

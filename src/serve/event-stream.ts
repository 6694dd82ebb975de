import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { TroupeEvent } from '../engine/event-map.js';
import { isLiveOnly } from '../kernel/session-kernel.js';
import { redactDeep } from '../llm/redact.js';
import { displayFold, displayNames } from '../report/display-items.js';
import type { SessionHost } from './host.js';
import { SseClient } from './sse-client.js';
import { sseMessage } from './sse-message.js';
import { storedDefinition } from './view.js';

/** How long an EventSource waits before it reconnects (the stream's `retry:` field). */
export const SSE_RETRY_MS = 3_000;

/** What a stream needs besides the request: the host, the session and where to resume, the keep-alive interval. */
export interface EventStreamOptions {
  host: SessionHost;
  id: string;
  /** The last seq the reader has (Last-Event-ID, or `after`). */
  after: number;
  keepAliveMs: number;
}

/**
 * A session's events as Server-Sent Events: the stored ones after `after`, then the live ones whenever the
 * session runs here (now or once it is opened again), each with its display items. It starts with `retry:`;
 * it ends after `session_ended`; a session that is over and has nothing after `after` answers 204 (the
 * EventSource spec's "stop reconnecting"), so readers of an ended session do not reconnect forever.
 */
export async function eventStream(c: Context, options: EventStreamOptions): Promise<Response> {
  const { host, id, after } = options;
  const client = new SseClient();
  // Followed before the stored log is read, so nothing falls between the two; duplicates are skipped by seq.
  const unfollow = host.follow(id, (e) => client.push(e));
  let read;
  try {
    read = await host.options.store.read(id);
  } catch (error) {
    unfollow();
    throw error;
  }
  const live = host.get(id);
  // Each event goes out with its display items; the fold reads the whole log, so a resumed stream words its first items right.
  const items = displayFold(displayNames(live?.def ?? storedDefinition(read.doc, host.options.team)));
  for (const e of read.events) if (e.seq <= after) items(e);
  const stored = read.events.filter((e) => e.seq > after);
  const over = live ? live.getSnapshot().status === 'ended' : read.events.some((e) => e.type === 'session_ended');
  if (over && stored.length === 0) {
    unfollow();
    return c.body(null, 204);
  }
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => client.close());
    let sent = after;
    let ended = false;
    const send = async (e: TroupeEvent) => {
      // Live-only events (deltas, predictions) carry the last stored seq: sent live, never as a resume point.
      const liveOnly = isLiveOnly(e.type);
      if (!liveOnly && e.seq <= sent) return;
      const shown = redactDeep(e);
      await stream.writeSSE({ ...sseMessage(shown, items(shown)), ...(!liveOnly ? { id: String(e.seq) } : {}) });
      if (!liveOnly) sent = e.seq;
      if (e.type === 'session_ended') ended = true;
    };
    try {
      await stream.write(`retry: ${SSE_RETRY_MS}\n\n`);
      for (const e of stored) await send(e);
      if (over) return;
      const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n'), options.keepAliveMs);
      try {
        for (let batch = await client.next(); batch.length > 0 && !ended; batch = ended ? [] : await client.next()) {
          for (const e of batch) if (!ended) await send(e);
        }
      } finally {
        clearInterval(keepAlive);
      }
      if (client.dropped) await stream.writeSSE({ event: 'dropped', data: JSON.stringify({ error: 'this reader fell too far behind and was dropped; reconnect with Last-Event-ID' }) });
    } finally {
      unfollow();
    }
  });
}

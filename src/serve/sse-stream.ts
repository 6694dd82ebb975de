import { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { SseClient } from './sse-client.js';
import type { SseFrame } from './sse-frame.js';

/** Where a reader's frames go: written in order; `closed` once the reader left. */
interface Sink {
  write(bytes: Uint8Array): Promise<void> | void;
  readonly closed: boolean;
}

const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');
const DROPPED = Buffer.from(`event: dropped\ndata: ${JSON.stringify({ error: 'this reader fell too far behind and was dropped; reconnect with Last-Event-ID' })}\n\n`);

/** What one SSE reader gets: frames read from the store first, then the live ones its client queues; frames at or before `after` (or already sent) are skipped. */
export interface SseReader {
  after: number;
  stored: readonly SseFrame[];
  client: SseClient<SseFrame>;
  /** Whether live frames follow the stored ones (the session runs here). */
  live: boolean;
  keepAliveMs: number;
  /** Called once the stream is over (the reader left, was dropped, or there is nothing live). */
  done: () => void;
}

async function pump(sink: Sink, r: SseReader): Promise<void> {
  let sent = r.after;
  const fresh = (f: SseFrame) => f.live || f.seq > sent;
  const write = async (frames: readonly SseFrame[]) => {
    const out = frames.filter(fresh);
    if (out.length === 0) return;
    for (const f of out) if (!f.live) sent = f.seq;
    // A batch goes out as one write: the frames' bytes are shared by every reader, the joined copy is this reader's.
    await sink.write(out.length === 1 ? out[0]!.bytes : Buffer.concat(out.map((f) => f.bytes)));
  };
  await write(r.stored);
  if (!r.live) return;
  const keepAlive = setInterval(() => void sink.write(KEEP_ALIVE), r.keepAliveMs);
  try {
    for (let batch = await r.client.next(); batch.length > 0 && !sink.closed; batch = await r.client.next()) await write(batch);
  } finally {
    clearInterval(keepAlive);
  }
  if (r.client.dropped && !sink.closed) await sink.write(DROPPED);
}

/**
 * Streams a reader's frames as Server-Sent Events. Under Node's HTTP server the frames are written to the
 * response directly (no web stream between: one socket write per batch, waiting for `drain` when the
 * connection is slow); elsewhere (an in-process `app.request`) through Hono's SSE stream.
 */
export function streamFrames(c: Context, r: SseReader): Response | Promise<Response> {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  if (outgoing instanceof ServerResponse) {
    const res = outgoing;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    const sink: Sink = {
      get closed() {
        return res.destroyed || res.writableEnded;
      },
      write(bytes) {
        if (this.closed || res.write(bytes)) return;
        return new Promise<void>((resolve) => {
          const go = () => (res.off('drain', go), res.off('close', go), resolve());
          res.on('drain', go);
          res.on('close', go);
        });
      },
    };
    res.once('close', () => r.client.close());
    void pump(sink, r)
      .catch(() => undefined)
      .finally(() => {
        r.done();
        if (!res.writableEnded) res.end();
      });
    return RESPONSE_ALREADY_SENT;
  }
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => r.client.close());
    const sink: Sink = {
      get closed() {
        return stream.aborted || stream.closed;
      },
      write: async (bytes) => void (await stream.write(bytes)),
    };
    try {
      await pump(sink, r);
    } finally {
      r.done();
    }
  });
}

import { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { SseClient, SseSink } from './sse-client.js';
import type { SseFrame } from './sse-frame.js';

/** What one SSE reader gets: frames read from the store first, then those its client is pushed. */
export interface SseReader {
  stored: readonly SseFrame[];
  client: SseClient;
  /** Whether frames follow the stored ones (the session runs here); otherwise the stream ends after them. */
  live: boolean;
  keepAliveMs: number;
  /** Called once the stream is over. */
  done: () => void;
}

/**
 * Streams a reader's frames as Server-Sent Events. Under Node's HTTP server they are written to the response
 * directly, synchronously as they come (one socket write per frame or batch, none while the connection
 * drains); elsewhere (an in-process `app.request`) through Hono's SSE stream, one write at a time.
 */
export function streamFrames(c: Context, r: SseReader): Response | Promise<Response> {
  const { client } = r;
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  if (outgoing instanceof ServerResponse) {
    const res = outgoing;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    const sink: SseSink = {
      write: (bytes) => !res.destroyed && !res.writableEnded && res.write(bytes),
      onDrain: (listener) => void res.on('drain', listener),
      end: () => void (res.writableEnded || res.end()),
    };
    res.once('close', () => client.close());
    void client.over.finally(r.done);
    client.start(sink, r.stored, r.keepAliveMs);
    if (!r.live) client.close();
    return RESPONSE_ALREADY_SENT;
  }
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => client.close());
    let drained: (() => void) | null = null;
    const sink: SseSink = {
      write: (bytes) => {
        void stream.write(bytes).then(() => drained?.());
        return false;
      },
      onDrain: (listener) => {
        drained = listener;
      },
      end: () => undefined,
    };
    client.start(sink, r.stored, r.keepAliveMs);
    if (!r.live) client.close();
    try {
      await client.over;
    } finally {
      r.done();
    }
  });
}

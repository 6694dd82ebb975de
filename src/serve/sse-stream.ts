import { IncomingMessage, ServerResponse } from 'node:http';
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
 * directly, without a promise per frame (one socket write per batch, none while the connection drains); elsewhere (an in-process `app.request`) through Hono's SSE stream, one write at a time.
 */
export function streamFrames(c: Context, r: SseReader): Response | Promise<Response> {
  const { client } = r;
  const env = c.env as { incoming?: unknown; outgoing?: unknown } | undefined;
  const outgoing = env?.outgoing;
  if (outgoing instanceof ServerResponse) {
    const res = outgoing;
    if (env?.incoming instanceof IncomingMessage) leaveQuietly(env.incoming, res);
    // The head goes out with the first frames (the retry frame is always first), in one write.
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'transfer-encoding': 'chunked' });
    // Node's response corks its socket at each write until the next tick: a reader's write is sent now
    // instead, so a slice of writes to many readers costs what it takes on the loop, not after it.
    const sent = (ok: boolean) => {
      res.socket?.uncork();
      return ok;
    };
    const sink: SseSink = {
      write: (bytes) => !res.destroyed && !res.writableEnded && sent(res.write(bytes)),
      writeMany: (list) => {
        if (res.destroyed || res.writableEnded) return false;
        res.cork();
        let ok = true;
        for (const bytes of list) ok = res.write(bytes) && ok;
        res.uncork();
        return sent(ok);
      },
      onDrain: (listener) => void res.on('drain', listener),
      // A response whose reader left has nothing to end (ending it would go through the write path for nothing).
      end: () => void (res.writableEnded || res.destroyed || res.end()),
    };
    res.once('close', () => client.close());
    // A client that left while its request waited (for the store, or its slice) has closed already: no 'close' comes.
    if (res.destroyed || !res.socket || res.socket.destroyed) client.close();
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

/**
 * When the connection of a stream closes under it (its reader left: a reset, or the end of its side), its
 * request is destroyed first, without an error: Node's HTTP server would destroy it with a fresh "aborted"
 * error whose stack it reads (to free it), about 10-40 µs a reader, and a thousand readers leaving at once
 * each paid it in the same turn of the loop. A stream that ends normally lets go of its connection first.
 */
function leaveQuietly(incoming: IncomingMessage, res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  const quiet = () => void incoming.destroy();
  socket.prependOnceListener('close', quiet);
  res.once('finish', () => socket.off('close', quiet));
}

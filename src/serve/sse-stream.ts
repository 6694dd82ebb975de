import { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { httpChunk } from './sse-chunk.js';
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
 * Streams a reader's frames as Server-Sent Events. Under Node's HTTP server they are written to the response's
 * socket directly (see rawSink), without a promise per frame (one socket write per batch, none while the
 * connection drains); elsewhere (an in-process `app.request`) through Hono's SSE stream, one write at a time.
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
    const sink = rawSink(res);
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

// Buffers larger than this go through the response's own write (a replay to a reader joining late): one framed
// copy of them would be kept among the recent chunks (httpChunk) for nothing.
const RAW_MAX_BYTES = 64 * 1024;

/**
 * Where a reader's bytes go under Node's HTTP server: after the first write (the response's, which sends its head),
 * each buffer goes to the socket as one HTTP chunk framed once for every reader written it (httpChunk). Node's
 * response writes a chunk as four buffered writes gathered into one, and corks its socket until the next tick:
 * a kilobyte of short-lived objects a write, a thousand of them for each event a thousand readers read, and
 * the scavenges they brought paused the server (healthz's tail). A response that waits for its socket (a request
 * pipelined behind another) and large buffers are written through the response.
 */
function rawSink(res: ServerResponse): SseSink {
  const socket = res.socket;
  let headSent = false;
  // A reader's write is sent now: a slice of writes to many readers costs what it takes on the loop, not after it.
  const throughResponse = (bytes: Uint8Array) => {
    headSent = true;
    const ok = res.write(bytes);
    res.socket?.uncork();
    return ok;
  };
  const gone = () => res.destroyed || res.writableEnded;
  let drained: (() => void) | null = null;
  const stopDraining = () => {
    if (drained) socket?.off('drain', drained);
    drained = null;
  };
  if (socket) {
    res.once('finish', stopDraining);
    res.once('close', stopDraining);
  }
  return {
    write: (bytes) => {
      if (gone()) return false;
      if (!headSent || !socket || res.socket !== socket || !socket.writable || bytes.byteLength > RAW_MAX_BYTES || bytes.byteLength === 0) return throughResponse(bytes);
      return socket.write(res.chunkedEncoding ? httpChunk(bytes) : bytes);
    },
    writeMany: (list) => {
      if (gone()) return false;
      res.cork();
      let ok = true;
      for (const bytes of list) ok = res.write(bytes) && ok;
      headSent = true;
      res.uncork();
      res.socket?.uncork();
      return ok;
    },
    // The socket's drain: a raw write that filled it sets no 'drain' to come on the response.
    onDrain: (listener) => {
      if (!socket) return void res.on('drain', listener);
      drained = listener;
      socket.on('drain', listener);
    },
    // A response whose reader left has nothing to end (ending it would go through the write path for nothing).
    end: () => void (res.writableEnded || res.destroyed || res.end()),
  };
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

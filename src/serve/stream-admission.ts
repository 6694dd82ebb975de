import type { IncomingMessage, ServerResponse } from 'node:http';
import { phaseDeadline, serverShare } from './loop-share.js';

/** A Node request listener (what a request does on the server). */
export type RequestListener = (incoming: IncomingMessage, outgoing: ServerResponse) => unknown;

/** A request for a session's event stream: `GET /v1/sessions/{id}/events` (with or without a query). */
export function isEventStream(incoming: IncomingMessage): boolean {
  const url = incoming.url ?? '';
  return incoming.method === 'GET' && url.startsWith('/v1/sessions/') && /^\/v1\/sessions\/[^/?]+\/events(?:\?|$)/.test(url);
}

/** Resolves once `outgoing` has written its head (never, for a response that has no writeHead). */
function headWritten(outgoing: ServerResponse): Promise<void> {
  if (outgoing.headersSent) return Promise.resolve();
  const writeHead = outgoing.writeHead;
  if (typeof writeHead !== 'function') return new Promise(() => undefined);
  return new Promise((resolve) => {
    outgoing.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
      const written = writeHead.apply(this, args);
      resolve();
      return written;
    } as ServerResponse['writeHead'];
  });
}

/**
 * Wraps a request listener so that event-stream requests are handled in slices of the loop's check phase
 * (setImmediate), a share of each turn (see LoopShare), instead of inside the poll phase that read them: a thousand
 * readers connecting at once are read by one or two poll phases, and routing and attaching each there (its
 * promise jobs included) held every other request, a health check too, for hundreds of milliseconds. Other
 * requests are handled at once. A stream whose client left while it waited is not handled.
 */
export function admitStreamsInSlices(listener: RequestListener, deferred: (incoming: IncomingMessage) => boolean = isEventStream): RequestListener {
  const waiting: [IncomingMessage, ServerResponse][] = [];
  let head = 0;
  let scheduled = false;

  const drain = async () => {
    const end = phaseDeadline();
    // A handler that waits on I/O (a stream resuming from the store) holds the slice until the next check phase at most.
    const nextTurn = new Promise<void>((resolve) => setImmediate(resolve));
    // At least one request a slice, even when the readers' writes took this phase's time: admission goes on.
    for (let first = true; head < waiting.length && (first || performance.now() < end); first = false) {
      const [incoming, outgoing] = waiting[head]!;
      waiting[head] = undefined as never;
      head += 1;
      if (outgoing.destroyed || incoming.socket?.destroyed) continue;
      // A stream's handler settles only when its stream ends: once it has written its head it is admitted and the next
      // one starts in this slice (waiting for the next turn instead admitted one stream a turn: a thousand readers
      // took seconds to connect on a busy loop).
      await Promise.race([listener(incoming, outgoing), headWritten(outgoing), nextTurn]);
    }
    serverShare.ended();
    if (head === waiting.length) {
      waiting.length = 0;
      head = 0;
      scheduled = false;
    } else setImmediate(() => void drain());
  };

  return (incoming, outgoing) => {
    if (!deferred(incoming)) return listener(incoming, outgoing);
    waiting.push([incoming, outgoing]);
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => void drain());
    }
  };
}

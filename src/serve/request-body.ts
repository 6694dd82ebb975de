import { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { RequestRefused } from './host.js';

/** The Node request under a Hono context, when the server runs on Node's HTTP server (not an in-process `app.request`). */
export function nodeRequest(c: Context): IncomingMessage | null {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof IncomingMessage ? incoming : null;
}

/** The refusal of a body over the limit. */
export const tooLarge = (maxBytes: number) => new RequestRefused(413, `the body is larger than ${maxBytes} bytes`);

/**
 * A Node request's body as text, read straight from the connection and refused (413) once it passes
 * `maxBytes`, whether it said its length or came in chunks. (Hono's body limit asks the Node adapter for the
 * body as a stream, and that builds a whole fetch Request per request: 3% of troupe serve's CPU at 1,000
 * sessions.)
 */
export function readNodeBody(incoming: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = Number(incoming.headers['content-length']);
  if (declared > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        incoming.off('data', onData);
        // The rest is read and dropped (the answer still goes out on this connection).
        incoming.resume();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    incoming.on('data', onData);
    incoming.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.once('error', () => reject(new RequestRefused(400, 'the body could not be read')));
  });
}

import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { SseClient } from '../../src/serve/sse-client.js';
import type { SseFrame } from '../../src/serve/sse-frame.js';
import { streamFrames } from '../../src/serve/sse-stream.js';

const frame: SseFrame = { seq: 1, live: false, bytes: Buffer.from('event: note\ndata: first\nid: 1\n\n') };

/** A server streaming frames to each reader as `troupe serve` does; resolves with the request of the first reader once its stream is over. */
async function readerLeaves(leave: (socket: Socket) => void): Promise<IncomingMessage> {
  let over: (req: IncomingMessage) => void;
  const ended = new Promise<IncomingMessage>((resolve) => (over = resolve));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const client = new SseClient(0);
    const c = { env: { incoming: req, outgoing: res } } as unknown as Context;
    // Node destroys the request within the ticks after its connection closed: looked at in the next turn of the loop.
    streamFrames(c, { stored: [frame], client, live: true, keepAliveMs: 60_000, done: () => setImmediate(() => over(req)) });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const request = get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, (response) => {
      response.once('data', () => leave(response.socket));
    });
    request.on('error', () => undefined);
    return await ended;
  } finally {
    server.close();
  }
}

describe('a reader leaving its stream', () => {
  // Node's server destroys a request whose connection closed with a fresh "aborted" error and reads its
  // stack: tens of microseconds a reader, paid by a thousand readers leaving together in one turn of the loop.
  it('by resetting its connection (a browser navigating away) closes its request without an error', async () => {
    const req = await readerLeaves((socket) => socket.resetAndDestroy());
    expect(req.destroyed).toBe(true);
    expect(req.errored).toBeNull();
  });

  it('by closing its side closes its request without an error', async () => {
    const req = await readerLeaves((socket) => socket.destroy());
    expect(req.destroyed).toBe(true);
    expect(req.errored).toBeNull();
  });
});

import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Context } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { SseClient } from '../../src/serve/sse-client.js';
import type { SseFrame } from '../../src/serve/sse-frame.js';
import { streamFrames } from '../../src/serve/sse-stream.js';

const frame = (seq: number, text: string): SseFrame => ({ seq, live: false, bytes: Buffer.from(`event: note\ndata: ${text}\nid: ${seq}\n\n`) });
const afterSlices = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** A reader's side of the server: its SSE client, and every `write` its socket was called with. */
interface Served {
  client: SseClient;
  socketWrites: unknown[][];
  socketAnswers: boolean[];
}

let close: (() => void) | null = null;
afterEach(() => close?.());

/** A server streaming frames to each reader as `troupe serve` does (the `first` frame stored), its sockets' writes recorded. */
async function server(first: SseFrame): Promise<{ url: string; served: Served[] }> {
  const served: Served[] = [];
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const client = new SseClient(0);
    const socket = res.socket as Socket;
    const entry: Served = { client, socketWrites: [], socketAnswers: [] };
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((...args: unknown[]) => {
      entry.socketWrites.push(args);
      const ok = write(...args);
      entry.socketAnswers.push(ok);
      return ok;
    }) as typeof socket.write;
    served.push(entry);
    streamFrames({ env: { incoming: req, outgoing: res } } as unknown as Context, { stored: [first], client, live: true, keepAliveMs: 60_000, done: () => undefined });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  close = () => {
    for (const s of served) s.client.close();
    http.closeAllConnections();
    http.close();
  };
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/`, served };
}

/** Opens a stream and collects its body; `paused` keeps the reader from reading until it is resumed. */
function open(url: string): { body: Promise<string>; got: () => string; resume: () => void; paused: (p: boolean) => void } {
  const chunks: Buffer[] = [];
  let response: IncomingMessage | null = null;
  let hold = false;
  const body = new Promise<string>((resolve, reject) => {
    get(url, (r) => {
      response = r;
      if (hold) r.pause();
      r.on('data', (c: Buffer) => chunks.push(c));
      r.once('end', () => resolve(Buffer.concat(chunks).toString()));
      r.once('error', reject);
    }).once('error', reject);
  });
  return {
    body,
    got: () => Buffer.concat(chunks).toString(),
    resume: () => response?.resume(),
    paused: (p) => {
      hold = p;
      if (p) response?.pause();
    },
  };
}

const text = (b: unknown) => Buffer.from(b as Uint8Array).toString('latin1');

describe("an SSE stream on Node's HTTP server", () => {
  // Node's response writes a chunk as four buffered writes (its length, CRLF, the bytes, CRLF) gathered into
  // one, corking the socket until the next tick: a kilobyte of short-lived objects per reader per event.
  it('after its head, a frame goes to each socket as one HTTP chunk, framed once for all the readers written it', async () => {
    const { url, served } = await server(frame(1, 'first'));
    const readers = [open(url), open(url)];
    await expect.poll(() => readers.every((r) => r.got().includes('data: first'))).toBe(true);
    for (const s of served) s.socketWrites.length = 0;
    const shared = frame(2, 'shared');
    for (const s of served) s.client.push(shared);
    await afterSlices();
    for (const s of served) {
      expect(s.socketWrites).toHaveLength(1);
      const chunk = s.socketWrites[0]![0];
      expect(text(chunk)).toBe(`${shared.bytes.byteLength.toString(16)}\r\n${text(shared.bytes)}\r\n`);
      expect(chunk).toBe(served[0]!.socketWrites[0]![0]);
    }
    for (const s of served) s.client.close();
    for (const r of readers) expect(await r.body).toBe(`${text(frame(1, 'first').bytes)}${text(shared.bytes)}`);
  });

  it("a reader whose socket is full waits for the socket's drain, then gets what queued meanwhile, every frame in order", async () => {
    const { url, served } = await server(frame(1, 'first'));
    const reader = open(url);
    await expect.poll(() => reader.got().includes('data: first')).toBe(true);
    reader.paused(true);
    const big = 'x'.repeat(60 * 1024);
    // Until the socket says to wait (the kernel's buffers full: the reader does not read), then as many again, queued.
    let seq = 1;
    while (!served[0]!.socketAnswers.includes(false)) {
      served[0]!.client.push(frame(++seq, `${seq} ${big}`));
      await afterSlices();
      expect(seq).toBeLessThan(1_000);
    }
    const full = seq;
    for (let i = 0; i < 20; i++) served[0]!.client.push(frame(++seq, `${seq} ${big}`));
    await afterSlices();
    const writesWhileFull = served[0]!.socketWrites.length;
    reader.resume();
    await expect.poll(() => reader.got().includes(`data: ${seq} `), { timeout: 20_000 }).toBe(true);
    // What queued while the socket was full went out after its drain.
    expect(writesWhileFull).toBeLessThan(served[0]!.socketWrites.length);
    expect(full).toBeGreaterThan(1);
    served[0]!.client.close();
    const ids = [...(await reader.body).matchAll(/\nid: (\d+)\n/g)].map((m) => Number(m[1]));
    expect(ids).toEqual(Array.from({ length: seq }, (_, i) => i + 1));
  });
});

import { constants, connect as h2connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { connect as tcpConnect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../../src/serve/restate/worker.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';
import { workerHere } from '../../helpers/workers.js';

// Hostile: anyone who reaches a Restate worker's port (its HTTP/2 endpoint) could hold every file descriptor with idle
// sockets, or open streams without end on one connection (Node's default allows 2^32-1). TROUPE_SERVE_MAX_CONNECTIONS
// held `troupe serve` (HTTP/1) only; the worker now holds connections and streams too. All on 127.0.0.1.
const temp = tempDirPerTest('troupe-worker-cap-');
const opened: { close(): void }[] = [];
let worker: RunningWorker | null = null;
afterEach(async () => {
  for (const o of opened.splice(0)) o.close();
  await worker?.close();
  worker = null;
});

async function capped(maxConnections: number, maxStreams: number): Promise<string> {
  worker = await workerHere(temp(), { maxConnections, maxStreams });
  return worker.url;
}

const closed = (emitter: { once(event: 'close', f: () => void): unknown }) => new Promise<void>((resolve) => emitter.once('close', () => resolve()));

/** A TCP connection that never says anything (no HTTP/2 preface), once connected. */
async function silent(url: string): Promise<Socket> {
  const { port } = new URL(url);
  const socket = tcpConnect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  // Read, so the worker's closing it is seen.
  socket.resume();
  opened.push({ close: () => socket.destroy() });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return socket;
}

function client(url: string): ClientHttp2Session {
  const session = h2connect(url);
  session.on('error', () => {});
  opened.push({ close: () => session.destroy() });
  return session;
}

/** A stream held open: the worker answers it (415: no accept header), and it stays open until the client ends its side. */
async function held(session: ClientHttp2Session): Promise<ClientHttp2Stream> {
  const stream = session.request({ ':method': 'POST', ':path': '/discover' });
  stream.on('error', () => {});
  stream.write('x');
  await new Promise<void>((resolve, reject) => {
    stream.once('response', () => resolve());
    stream.once('close', () => reject(new Error(`closed before an answer (RST ${stream.rstCode})`)));
  });
  return stream;
}

/** How a stream ended: its RST code once closed. */
const ending = (stream: ClientHttp2Stream) => closed(stream).then(() => stream.rstCode);

describe('a Restate worker holds its HTTP/2 connections and streams to caps', () => {
  it('idle connections over the cap: the one idle longest is closed, and a real client is still answered', async () => {
    const url = await capped(3, 10);
    const sockets = [await silent(url), await silent(url), await silent(url)];
    const firstGone = closed(sockets[0]!);
    sockets.push(await silent(url));
    await firstGone;
    const secondGone = closed(sockets[1]!);
    const stream = await held(client(url));
    await secondGone;
    expect(stream.destroyed).toBe(false);
    expect(sockets[2]!.destroyed).toBe(false);
  });

  it('every held connection has a stream open: a new connection is closed, the held ones keep their streams', async () => {
    const url = await capped(2, 10);
    const streams = [await held(client(url)), await held(client(url))];
    const third = client(url);
    const refused = third.request({ ':method': 'POST', ':path': '/discover' });
    refused.on('error', () => {});
    await closed(third);
    expect(refused.destroyed).toBe(true);
    expect(streams.map((s) => s.closed)).toEqual([false, false]);
  });

  it('streams over the cap across connections are refused (REFUSED_STREAM: retryable, nothing ran); room comes back as one closes', async () => {
    const url = await capped(10, 3);
    const a = client(url);
    const settings = new Promise<number | undefined>((resolve) => a.once('remoteSettings', (s) => resolve(s.maxConcurrentStreams)));
    const aStreams = [await held(a), await held(a)];
    expect(await settings).toBe(3);
    const b = client(url);
    await held(b);
    const over = b.request({ ':method': 'POST', ':path': '/discover' });
    over.on('error', () => {});
    expect(await ending(over)).toBe(7);
    aStreams[0]!.close();
    await closed(aStreams[0]!);
    // A round trip on the same connection: the worker has taken in the stream's end before it answers.
    await new Promise<void>((resolve, reject) => a.ping((error) => (error ? reject(error) : resolve())));
    expect(await held(b)).toBeDefined();
  });

  it('a rapid reset (streams opened and reset at once, CVE-2023-44487) leaks no stream of the cap: the next client is answered', async () => {
    // probe16: were a reset stream never counted off, a client could fill the cap of 5 with streams it reset.
    const url = await capped(10, 5);
    const attacker = client(url);
    for (let i = 0; i < 3000 && !attacker.destroyed; i++) {
      try {
        attacker
          .request({ ':method': 'POST', ':path': '/discover' })
          .on('error', () => {})
          .close(constants.NGHTTP2_CANCEL);
      } catch {
        break; // Node ends a session that resets streams without end (ENHANCE_YOUR_CALM).
      }
      if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const streams = [];
    for (let i = 0; i < 5; i++) streams.push(await held(client(url)));
    expect(streams.every((s) => !s.destroyed)).toBe(true);
  });
});

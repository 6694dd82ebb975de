// The readers' socket writes alone, side by side: READERS SSE connections (the readers in a process of their own,
// bench/fanout-readers.ts) are each written one shared frame, a round at a time, either through Node's response
// (`res.write`, what troupe's streams did) or straight to the socket as one HTTP chunk framed once for all of
// them (`httpChunk`, what they do now). The same bytes reach the readers either way. Interleaved, ROUNDS rounds
// a size; prints the server's CPU and the bytes it allocated per write (V8's sampling heap profiler, garbage
// included), median over rounds. Run: `node --import tsx bench/fanout-writes.ts` (FANOUT_READERS, FANOUT_ROUNDS).
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { httpChunk } from '../src/serve/sse-chunk.js';
import { sampleAllocations } from './allocation-sites.js';
import { median } from './stats.js';

const READERS = Number(process.env.FANOUT_READERS ?? 1000);
const ROUNDS = Number(process.env.FANOUT_ROUNDS ?? 15);
const WARMUP = 3;

/** A frame of `deltas` streamed words as troupe frames them (a batch for a thousand readers holds about fifty). */
function batch(deltas: number): Buffer {
  const one = (i: number) =>
    `event: agent_delta\ndata: {"type":"agent_delta","persona":"creative_partner","turn_id":"t4","delta":{"type":"text","text":"word${i} "},"session_id":"bench","seq":${i},"at":"2026-11-27T10:00:00.000Z","items":[]}\n\n`;
  return Buffer.from(Array.from({ length: deltas }, (_, i) => one(i)).join(''));
}

/** How each way writes `bytes` to one reader. */
const WAYS = {
  response: (res: ServerResponse, bytes: Uint8Array) => {
    res.write(bytes);
    // As the streams did: the response corks its socket until the next tick, and the write is sent now.
    res.socket?.uncork();
  },
  socket: (res: ServerResponse, bytes: Uint8Array) => void (res.socket as Socket).write(httpChunk(bytes)),
};
type Way = keyof typeof WAYS;

const responses: ServerResponse[] = [];
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'transfer-encoding': 'chunked' });
  res.write('retry: 3000\n\n');
  responses.push(res);
});
await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 2048 }, resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
// The readers read until they are stopped (they count deltas they never reach).
const readers = spawn(process.execPath, ['--import', 'tsx', new URL('./fanout-readers.ts', import.meta.url).pathname, url, String(READERS), String(Number.MAX_SAFE_INTEGER)], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
while (responses.length < READERS) await new Promise((r) => setTimeout(r, 50));

/** Waits until every socket has handed its bytes to the kernel (the readers keep up: no round writes into a full socket). */
async function drained(): Promise<void> {
  while (responses.some((res) => (res.socket?.writableLength ?? 0) > 0)) await new Promise((r) => setTimeout(r, 5));
}

/** One round: `bytes` to every reader one way, twice: the server's CPU (ms) for the first, the bytes it allocated in the second (sampled: the sampler's own time is left out of the CPU). */
async function round(way: Way, bytes: Uint8Array): Promise<{ cpu: number; allocated: number }> {
  const write = WAYS[way];
  await drained();
  const before = process.cpuUsage();
  for (const res of responses) write(res, bytes);
  const used = process.cpuUsage(before);
  await drained();
  const stop = await sampleAllocations(1024);
  for (const res of responses) write(res, bytes);
  const head = await stop();
  let allocated = 0;
  const walk = (node: typeof head) => {
    allocated += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(head);
  return { cpu: (used.user + used.system) / 1000, allocated };
}

process.stdout.write(
  `${READERS} SSE readers (another process), one shared frame written to each a round at a time (twice: once for CPU, once sampling allocations), ${ROUNDS} rounds a size, interleaved; load ${(await import('node:os')).loadavg()[0]!.toFixed(1)}:\n`,
);
for (const deltas of [1, 50]) {
  const bytes = batch(deltas);
  const figures: Record<Way, { cpu: number[]; allocated: number[] }> = { response: { cpu: [], allocated: [] }, socket: { cpu: [], allocated: [] } };
  for (let r = 0; r < WARMUP + ROUNDS; r++) {
    for (const way of Object.keys(WAYS) as Way[]) {
      const got = await round(way, bytes);
      if (r < WARMUP) continue;
      figures[way].cpu.push(got.cpu);
      figures[way].allocated.push(got.allocated);
    }
  }
  const line = (way: Way) => `${((median(figures[way].cpu) * 1000) / READERS).toFixed(1)} µs CPU and ${(median(figures[way].allocated) / READERS).toFixed(0)} bytes allocated a write`;
  process.stdout.write(
    `  a frame of ${bytes.byteLength} bytes (${deltas} streamed word${deltas === 1 ? '' : 's'}): through the response ${line('response')}; to the socket as one chunk ${line('socket')} (CPU ${(median(figures.socket.cpu) / median(figures.response.cpu)).toFixed(2)}x)\n`,
  );
}
readers.kill();
for (const res of responses) res.destroy();
server.close();
process.exit(0);

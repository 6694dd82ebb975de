// The floor under bench/fanout.bench.ts: the least a Node server can do for the same load on the same machine
// — node:http, `/healthz`, and one session's stream that a timer feeds a delta every few milliseconds, written
// to every reader as one prebuilt buffer per batch (the batch length troupe uses for as many readers). No
// engine, no wording, no redaction, no slices: what is left of /healthz's tail is the machine's and Node's.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The floor server on 127.0.0.1: the routes the fanout bench uses; `stop` ends it. */
export async function fanoutFloor(everyMs: number, batchMs: (readers: number) => number): Promise<{ port: number; id: string; stop: () => void }> {
  const id = 'floor';
  const readers = new Set<ServerResponse>();
  let seq = 0;
  let pending: string[] = [];
  let batch: NodeJS.Timeout | null = null;
  const send = () => {
    batch = null;
    const bytes = Buffer.from(pending.join(''));
    pending = [];
    for (const reader of readers) reader.write(bytes);
  };
  // A delta's frame about the size of troupe's (its JSON: type, persona, turn id, the word, seq, time).
  const words = setInterval(() => {
    seq += 1;
    pending.push(
      `event: agent_delta\ndata: {"type":"agent_delta","persona":"creative_partner","turn_id":"t4","delta":{"type":"text","text":"word${seq} "},"session_id":"${id}","seq":${seq},"at":"${new Date().toISOString()}","items":[]}\n\n`,
    );
    if (readers.size > 0) batch ??= setTimeout(send, batchMs(readers.size));
    else pending = [];
  }, everyMs);
  const server = createServer((request, response) => {
    const url = request.url ?? '';
    if (url === '/healthz') return response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (url === `/v1/sessions/${id}/events`) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.write('retry: 3000\n\n');
      readers.add(response);
      response.once('close', () => readers.delete(response));
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 2048 }, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    id,
    stop: () => {
      clearInterval(words);
      if (batch) clearTimeout(batch);
      for (const reader of readers) reader.end();
      server.close();
    },
  };
}

// The readers of bench/fanout.bench.ts, in a process of their own (their parsing is not the server's work):
// opens COUNT SSE streams of one session, says when all are connected, reads until each has seen DELTAS
// streamed deltas, and prints what it saw as one JSON line. With `probe URL` instead, it is the health
// probe, in a process of its own too: asks URL every 50 ms and sends each answer's time over IPC, stamped on
// the machine's monotonic clock, so neither the probe nor the readers share the server's event loop.
import { Agent, get } from 'node:http';

const [url, countArg, deltasArg] = process.argv.slice(2) as [string, string, string];

/** One GET on a kept connection, its JSON body read and parsed (node:http: the probe's own cost stays small beside the server's answer). */
function ask(target: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    get(target, { agent: probeAgent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.once('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
      response.once('error', reject);
    }).once('error', reject);
  });
}
const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });

if (url === 'probe') {
  const target = countArg;
  for (;;) {
    const at = Number(process.hrtime.bigint()) / 1e6;
    await ask(target);
    process.send?.([at, Number(process.hrtime.bigint()) / 1e6 - at]);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const COUNT = Number(countArg);
const DELTAS = Number(deltasArg);

const DELTA = Buffer.from('event: agent_delta');
const ENDS = [Buffer.from('event: awaiting_user'), Buffer.from('event: session_ended')];
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

// A reader on node:http, counting markers in the raw bytes: the readers' process is the bench's load, not the
// server's, and fetch's web streams and text decoding cost it twice the server's CPU, which on a machine of two
// cores was time taken from the server. A marker cut between two chunks is found in the carried tail.
function reader(): Promise<{ deltas: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent }, (response) => {
      connected += 1;
      if (connected === COUNT) process.stdout.write(`${JSON.stringify({ connected: performance.now() - started })}\n`);
      let deltas = 0;
      let bytes = 0;
      let carry = Buffer.alloc(0);
      const finish = () => {
        response.destroy();
        resolve({ deltas, bytes });
      };
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
        let at = 0;
        for (let i = data.indexOf(DELTA, at); i >= 0 && deltas < DELTAS; i = data.indexOf(DELTA, at)) {
          deltas += 1;
          at = i + 1;
        }
        if (deltas >= DELTAS || ENDS.some((m) => data.includes(m))) return finish();
        // Up to a marker's length less one is carried over, never a counted one.
        carry = Buffer.from(data.subarray(Math.max(at, data.length - ENDS[0]!.length + 1)));
      });
      response.once('end', () => resolve({ deltas, bytes }));
      response.once('error', reject);
    });
    request.once('error', reject);
  });
}

let connected = 0;
const started = performance.now();
const results = await Promise.all(Array.from({ length: COUNT }, () => reader().catch(() => ({ deltas: 0, bytes: 0 }))));
const cpu = process.cpuUsage();
process.stdout.write(
  `${JSON.stringify({ done: performance.now() - started, cpu: (cpu.user + cpu.system) / 1000, short: results.filter((r) => r.deltas < DELTAS).length, bytes: results.reduce((n, r) => n + r.bytes, 0) })}\n`,
);
process.exit(0);

// The readers of bench/fanout.bench.ts, in a process of their own (their parsing is not the server's work):
// opens COUNT SSE streams of one session, says when all are connected, reads until each has seen DELTAS
// streamed deltas, and prints what it saw as one JSON line. With `probe URL` instead, it is the health
// probe, in a process of its own too: asks URL every 50 ms and sends each answer's time over IPC, stamped on
// the machine's monotonic clock, so neither the probe nor the readers share the server's event loop.
const [url, countArg, deltasArg] = process.argv.slice(2) as [string, string, string];

if (url === 'probe') {
  const target = countArg;
  for (;;) {
    const at = Number(process.hrtime.bigint()) / 1e6;
    await (await fetch(target)).json();
    process.send?.([at, Number(process.hrtime.bigint()) / 1e6 - at]);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const COUNT = Number(countArg);
const DELTAS = Number(deltasArg);

async function reader(): Promise<{ deltas: number; bytes: number }> {
  const response = await fetch(url);
  connected += 1;
  if (connected === COUNT) process.stdout.write(`${JSON.stringify({ connected: performance.now() - started })}\n`);
  const body = response.body!.getReader();
  let deltas = 0;
  let bytes = 0;
  let carry = '';
  const decoder = new TextDecoder();
  while (deltas < DELTAS) {
    const { done, value } = await body.read();
    if (done) break;
    bytes += value.length;
    const text = carry + decoder.decode(value, { stream: true });
    let at = 0;
    if (text.includes('event: awaiting_user') || text.includes('event: session_ended')) break;
    for (let i = text.indexOf('event: agent_delta', at); i >= 0; i = text.indexOf('event: agent_delta', at)) {
      deltas += 1;
      at = i + 1;
    }
    // Up to a marker's length less one is carried over (a marker cut between two chunks), never a counted one.
    carry = text.slice(Math.max(at, text.length - 17));
  }
  await body.cancel();
  return { deltas, bytes };
}

let connected = 0;
const started = performance.now();
const results = await Promise.all(Array.from({ length: COUNT }, () => reader().catch(() => ({ deltas: 0, bytes: 0 }))));
process.stdout.write(`${JSON.stringify({ done: performance.now() - started, short: results.filter((r) => r.deltas < DELTAS).length, bytes: results.reduce((n, r) => n + r.bytes, 0) })}\n`);
process.exit(0);

// The load of bench/serve.bench.ts, in a process of its own (its HTTP clients and SSE parsing are not the
// server's work, and must not stall the server's event loop): creates SESSIONS sessions at once, reads each
// one's SSE stream until it waits for the user, and sends back (over IPC) when each agent_message arrived and
// when each stream was connected, on the machine's monotonic clock (the server process stamps its answers on
// the same clock).
const [base, sessionsArg] = process.argv.slice(2) as [string, string];
const SESSIONS = Number(sessionsArg);

/** Milliseconds on the monotonic clock every process of the machine shares. */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** What one load run saw. */
export interface LoadFigures {
  turns: number;
  seconds: number;
  failed: number;
  /** `brief#turnId` → when its agent_message arrived. */
  arrivals: [string, number][];
  /** brief → when its stream was connected. */
  connected: [string, number][];
}

const MESSAGE = 'event: agent_message\n';
const DONE = ['event: awaiting_user\n', 'event: session_ended\n'];

/** Reads a session's SSE stream until it waits for the user; only agent_message data is parsed (for its turn id). */
async function watch(url: string, brief: string, arrivals: [string, number][], connected: [string, number][]): Promise<number> {
  const response = await fetch(url);
  connected.push([brief, monotonicMs()]);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let turns = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return turns;
    buffer += decoder.decode(value, { stream: true });
    const end = buffer.lastIndexOf('\n\n');
    if (end < 0) continue;
    const complete = buffer.slice(0, end + 2);
    buffer = buffer.slice(end + 2);
    for (let at = complete.indexOf(MESSAGE); at >= 0; at = complete.indexOf(MESSAGE, at + 1)) {
      const line = complete.slice(complete.indexOf('data: ', at) + 6, complete.indexOf('\n', complete.indexOf('data: ', at)));
      const e = JSON.parse(line) as { turn_id?: string };
      arrivals.push([`${brief}#${e.turn_id}`, monotonicMs()]);
      turns++;
    }
    if (DONE.some((d) => complete.includes(d))) {
      await reader.cancel();
      return turns;
    }
  }
}

async function load(): Promise<LoadFigures> {
  const arrivals: [string, number][] = [];
  const connected: [string, number][] = [];
  let failed = 0;
  const started = monotonicMs();
  const runs = Array.from({ length: SESSIONS }, async (_, i) => {
    const brief = `bench session ${i}`;
    try {
      const created = await fetch(`${base}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ brief }) });
      const { id } = (await created.json()) as { id: string };
      return await watch(`${base}/v1/sessions/${id}/events`, brief, arrivals, connected);
    } catch {
      failed++;
      return 0;
    }
  });
  const turns = (await Promise.all(runs)).reduce((a, b) => a + b, 0);
  return { turns, seconds: (monotonicMs() - started) / 1000, failed, arrivals, connected };
}

if (process.send && import.meta.url === `file://${process.argv[1]}`) {
  const figures = await load();
  process.send(figures, () => process.exit(0));
}

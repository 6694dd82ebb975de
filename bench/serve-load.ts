// The load of bench/serve.bench.ts, in a process of its own (its HTTP clients and SSE parsing are not the
// server's work, and must not stall the server's event loop): creates SESSIONS sessions at once, reads each
// one's SSE stream until it waits for the user, and sends back (over IPC) when each agent_message arrived and
// when each stream was connected, on the machine's monotonic clock (the server process stamps its answers on
// the same clock).
import { Agent, type IncomingMessage, request as httpRequest } from 'node:http';

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
  /** When the load began, and when each session's creation was answered. */
  started: number;
  created: number[];
}

const MESSAGE = 'event: agent_message\n';
const DONE = ['event: awaiting_user\n', 'event: session_ended\n'];

// Connections are kept and reused at once (a session's stream follows its creation on the connection that
// created it): a thousand sessions are a thousand connections, not two thousand (the listen queue holds 511).
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

/** One HTTP request; a stream's request that finds its kept connection closed by the server is made again. */
function request(url: string, method: 'GET' | 'POST', body?: string, retry = method === 'GET'): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, agent, headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {} }, resolve);
    req.once('error', (error: NodeJS.ErrnoException) => (retry && error.code === 'ECONNRESET' ? resolve(request(url, method, body, false)) : reject(error)));
    req.end(body);
  });
}

/** Reads a session's SSE stream until it waits for the user; only agent_message data is parsed (for its turn id). */
async function watch(url: string, brief: string, arrivals: [string, number][], connected: [string, number][]): Promise<number> {
  const response = await request(url, 'GET');
  connected.push([brief, monotonicMs()]);
  response.setEncoding('utf8');
  let buffer = '';
  let turns = 0;
  for await (const chunk of response as AsyncIterable<string>) {
    buffer += chunk;
    const end = buffer.lastIndexOf('\n\n');
    if (end < 0) continue;
    const complete = buffer.slice(0, end + 2);
    buffer = buffer.slice(end + 2);
    for (let at = complete.indexOf(MESSAGE); at >= 0; at = complete.indexOf(MESSAGE, at + 1)) {
      const data = complete.indexOf('data: ', at) + 6;
      const e = JSON.parse(complete.slice(data, complete.indexOf('\n', data))) as { turn_id?: string };
      arrivals.push([`${brief}#${e.turn_id}`, monotonicMs()]);
      turns++;
    }
    if (DONE.some((d) => complete.includes(d))) {
      response.destroy();
      return turns;
    }
  }
  return turns;
}

/** The body of a response, as text. */
async function text(response: IncomingMessage): Promise<string> {
  let out = '';
  for await (const chunk of response) out += String(chunk);
  return out;
}

async function load(): Promise<LoadFigures> {
  const arrivals: [string, number][] = [];
  const connected: [string, number][] = [];
  const created: number[] = [];
  let failed = 0;
  const started = monotonicMs();
  const runs = Array.from({ length: SESSIONS }, async (_, i) => {
    const brief = `bench session ${i}`;
    try {
      const answer = await request(`${base}/v1/sessions`, 'POST', JSON.stringify({ brief }));
      const body = await text(answer);
      created.push(monotonicMs());
      if (answer.statusCode !== 201) throw new Error(`POST /v1/sessions answered ${answer.statusCode}: ${body}`);
      const { id } = JSON.parse(body) as { id: string };
      return await watch(`${base}/v1/sessions/${id}/events`, brief, arrivals, connected);
    } catch (error) {
      // The first few failures say why (a refused session, a reset connection).
      if (failed++ < 3) process.stderr.write(`serve load: ${brief}: ${error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error)}\n`);
      return 0;
    }
  });
  const turns = (await Promise.all(runs)).reduce((a, b) => a + b, 0);
  return { turns, seconds: (monotonicMs() - started) / 1000, failed, arrivals, connected, started, created };
}

if (process.send && import.meta.url === `file://${process.argv[1]}`) {
  const figures = await load();
  process.send(figures, () => process.exit(0));
}

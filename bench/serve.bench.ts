// `troupe serve` under load, next to its floor: many sessions at once on a model with a fixed latency that
// streams its words, through real HTTP and SSE; the floor (bench/serve-floor.ts) is a minimal Hono server with
// the same routes replaying troupe's own events on the same timer. Each run is a process of its own; the
// figures that hold on a busy machine are the ratios and the CPU per turn.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TroupeEvent } from '../src/engine/event-map.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { redactDeep } from '../src/llm/redact.js';
import { displayFold, displayNames } from '../src/report/display-items.js';
import { openTeam } from '../src/team/open-team.js';
import { PACKAGE_ROOT } from '../src/package-root.js';
import { serveApp } from '../src/serve/app.js';
import { SessionHost } from '../src/serve/host.js';
import { listen } from '../src/serve/listen.js';
import { openSession } from '../src/session/open-session.js';
import { LowdbStore } from '../src/store/lowdb-store.js';
import { floorServer, type FloorEvent, type FloorScript } from './serve-floor.js';
import { median, QUICK } from './stats.js';

const SIZES = (process.env.SERVE_SESSIONS ?? (QUICK ? '100' : '100,1000')).split(',').map(Number);
const ROUNDS = Number(process.env.SERVE_ROUNDS ?? (QUICK ? 1 : 2));
const TURNS = Number(process.env.SERVE_TURNS ?? 6);
const LATENCY_MS = 200;
// A turn's words arrive as this many streamed deltas (a real model streams; each is an SSE event).
const DELTAS = 46;

/** A model that answers after `latency` ms, streaming its words: hands to the next persona it may reach, then asks the user after TURNS turns; tells `answered` when each answer left. */
class LatencyModel implements ChatModel {
  readonly label = 'bench model (200 ms)';
  constructor(
    private readonly latency: number,
    private readonly answered: (brief: string, turnId: string) => void = () => undefined,
  ) {}

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (this.latency > 0) await new Promise((r) => setTimeout(r, this.latency));
    const usage = { promptTokens: 100, completionTokens: 20 };
    if (request.meta.purpose === 'summary') return { text: JSON.stringify({ decisions: [], discussions: ['bench'], pending: [] }), toolCalls: [], usage, finishReason: 'stop', model: 'bench' };
    const turn = Number((request.meta.turnId ?? 't1').slice(1));
    const next = request.meta.handoffTo?.[turn % (request.meta.handoffTo.length || 1)];
    const directive = turn >= TURNS || !next ? { transition: 'RESPOND_TO_USER' } : { transition: 'HANDOFF_TO_AGENT', next_agent: next };
    const words = [`turn ${turn} of ${request.meta.brief}: `, ...Array.from({ length: DELTAS - 1 }, (_, i) => `word${i} `)];
    this.answered(request.meta.brief ?? '', request.meta.turnId ?? '');
    if (request.onDelta) for (const text of words) request.onDelta({ type: 'text', text });
    return { text: words.join(''), toolCalls: [{ id: 'c1', name: 'handoff_directive', arguments: JSON.stringify(directive) }], usage, finishReason: 'tool_calls', model: 'bench' };
  }
}

/** troupe's own events of one bench session, as its SSE sends them (redacted, with display items), cut at each persona call: what the floor replays. */
async function record(): Promise<FloorScript> {
  const team = openTeam(PACKAGE_ROOT, {}, {});
  const events: FloorEvent[] = [];
  const calls: { at: number; turnId: string }[] = [];
  const model = new LatencyModel(0);
  const counting: ChatModel = { label: model.label, generate: (r) => (r.meta.purpose === 'persona' && calls.push({ at: events.length, turnId: r.meta.turnId ?? '' }), model.generate(r)) };
  const session = await openSession({ team, teamDir: PACKAGE_ROOT, env: {}, model: counting, brief: 'bench session 0' });
  const items = displayFold(displayNames(session.def));
  session.subscribe((e: TroupeEvent) => {
    const shown = redactDeep(e);
    events.push({ event: { ...shown } as FloorEvent['event'], items: items(shown) });
  });
  session.start('bench session 0');
  await session.settled();
  await session.stop();
  return {
    start: events.slice(0, calls[0]?.at ?? events.length),
    turns: calls.map((c, i) => ({ turnId: c.turnId, events: events.slice(c.at, calls[i + 1]?.at ?? events.length) })),
  };
}

/** Reads a session's SSE stream until it waits for the user; notes when each agent_message arrived, by turn id. */
async function watch(url: string, brief: string, arrivals: Map<string, number>, connected: Map<string, number>): Promise<number> {
  const response = await fetch(url);
  connected.set(brief, performance.now());
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let turns = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return turns;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .find((l) => l.startsWith('data: '));
      buffer = buffer.slice(end + 2);
      if (!data) continue;
      const e = JSON.parse(data.slice(6)) as { type: string; turn_id?: string };
      if (e.type === 'agent_message') {
        arrivals.set(`${brief}#${e.turn_id}`, performance.now());
        turns++;
      }
      if (e.type === 'awaiting_user' || e.type === 'session_ended') {
        await reader.cancel();
        return turns;
      }
    }
  }
}

/** What one run measured. */
interface Figures {
  target: 'troupe' | 'floor';
  sessions: number;
  turns: number;
  seconds: number;
  cpuMsPerTurn: number;
  p50: number;
  p99: number;
  kibPerSession: number;
  failed: number;
  eventsPerTurn: number;
}

/** One run in this process: `target` serves SESSIONS sessions at once, driven through HTTP by this process's clients. */
async function run(target: 'troupe' | 'floor', sessions: number): Promise<Figures> {
  const answered = new Map<string, number>();
  const onAnswer = (brief: string, turnId: string) => answered.set(`${brief}#${turnId}`, performance.now());
  const dir = mkdtempSync(join(tmpdir(), 'troupe-serve-bench-'));
  const script = await record();
  const eventsPerTurn = (script.start.length + script.turns.reduce((n, t) => n + t.events.length, 0)) / script.turns.length;
  global.gc?.();
  let stopServer: () => Promise<void>;
  let fetchHandler: (request: Request) => Response | Promise<Response>;
  if (target === 'troupe') {
    const model = new LatencyModel(LATENCY_MS, onAnswer);
    const host = new SessionHost({ store: new LowdbStore(dir), team: openTeam(PACKAGE_ROOT, {}, {}), teamDir: PACKAGE_ROOT, env: {}, maxSessions: sessions + 10, model: () => model });
    fetchHandler = serveApp({ host, token: null, maxBodyBytes: 64 * 1024 }).fetch;
    stopServer = () => host.stopAll();
  } else {
    const floor = floorServer(script, { latencyMs: LATENCY_MS, answered: onAnswer });
    fetchHandler = floor.fetch;
    stopServer = async () => floor.stop();
  }
  const { server, port } = await listen(fetchHandler, { hostname: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${port}`;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);
  const arrivals = new Map<string, number>();
  // Turns answered before a stream was connected arrive from the stored log, not live: they are not delays.
  const connected = new Map<string, number>();
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  let failed = 0;
  const runs = Array.from({ length: sessions }, async (_, i) => {
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
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  const delays = [...arrivals]
    .flatMap(([key, at]) => {
      const answer = answered.get(key);
      const since = connected.get(key.split('#')[0]!);
      return answer !== undefined && since !== undefined && answer >= since ? [at - answer] : [];
    })
    .sort((a, b) => a - b);
  await stopServer();
  server.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    target,
    sessions,
    turns,
    seconds,
    cpuMsPerTurn: (cpu.user + cpu.system) / 1000 / Math.max(1, turns),
    p50: median(delays),
    p99: delays[Math.min(delays.length - 1, Math.floor(delays.length * 0.99))] ?? 0,
    kibPerSession: (rssPeak - rssBefore) / sessions / 1024,
    failed,
    eventsPerTurn,
  };
}

/** Runs one measurement in a Node process of its own and returns its figures. */
async function inChild(target: 'troupe' | 'floor', sessions: number): Promise<Figures> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url)], {
    cwd: join(import.meta.dirname, '..'),
    env: { ...process.env, SERVE_CHILD: `${target}:${sessions}` },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`serve bench (${target}, ${sessions} sessions) exited ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as Figures;
}

export default async function serve(): Promise<void> {
  process.stdout.write(
    `sessions at once, ${TURNS} persona turns each, model latency ${LATENCY_MS} ms streaming ${DELTAS} deltas a turn, real HTTP + SSE (clients in the same process); troupe on a lowdb store vs the floor server (bench/serve-floor.ts); median of ${ROUNDS} interleaved run(s), each in a process of its own\n`,
  );
  for (const sessions of SIZES) {
    const runs: Record<'troupe' | 'floor', Figures[]> = { troupe: [], floor: [] };
    for (let r = 0; r < ROUNDS; r++) for (const target of ['floor', 'troupe'] as const) runs[target].push(await inChild(target, sessions));
    const m = (target: 'troupe' | 'floor', key: keyof Figures) => median(runs[target].map((f) => f[key] as number));
    const rate = (t: 'troupe' | 'floor') => median(runs[t].map((f) => f.turns / f.seconds));
    const line = (t: 'troupe' | 'floor') =>
      `    ${t.padEnd(6)} ${rate(t).toFixed(0).padStart(5)} turns/s  CPU ${m(t, 'cpuMsPerTurn').toFixed(2)} ms/turn  answer -> SSE p50 ${m(t, 'p50').toFixed(1)} ms, p99 ${m(t, 'p99').toFixed(1)} ms  RSS ${m(t, 'kibPerSession').toFixed(0)} KiB/session${runs[t].some((f) => f.failed) ? `  (${runs[t].map((f) => f.failed).join('/')} failed)` : ''}\n`;
    process.stdout.write(`  ${sessions} sessions (${m('troupe', 'eventsPerTurn').toFixed(0)} SSE events per turn; ideal ${(sessions / (LATENCY_MS / 1000)).toFixed(0)} turns/s):\n`);
    process.stdout.write(line('floor'));
    process.stdout.write(line('troupe'));
    process.stdout.write(
      `    troupe ÷ floor: throughput ${(rate('troupe') / rate('floor')).toFixed(2)}x (target >= 0.8x), CPU per turn ${(m('troupe', 'cpuMsPerTurn') / m('floor', 'cpuMsPerTurn')).toFixed(2)}x, p99 ${(m('troupe', 'p99') / m('floor', 'p99')).toFixed(2)}x, RSS per session ${(m('troupe', 'kibPerSession') / m('floor', 'kibPerSession')).toFixed(2)}x\n`,
    );
  }
}

const child = process.env.SERVE_CHILD;
if (child && import.meta.url === `file://${process.argv[1]}`) {
  const [target, sessions] = child.split(':') as ['troupe' | 'floor', string];
  process.stdout.write(`${JSON.stringify(await run(target, Number(sessions)))}\n`);
  process.exit(0);
} else if (import.meta.url === `file://${process.argv[1]}`) await serve();

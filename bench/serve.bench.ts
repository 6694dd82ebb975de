// `troupe serve` under load, next to its floor: many sessions at once on a model with a fixed latency that
// streams its words, through real HTTP and SSE; the floor (bench/serve-floor.ts) is a minimal Hono server with
// the same routes replaying troupe's own events on the same timer. Each run is a process of its own; the
// figures that hold on a busy machine are the ratios and the CPU per turn.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { TroupeEvent } from '../src/engine/event-map.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { redactDeep } from '../src/llm/redact.js';
import { displayFold, displayNames } from '../src/report/display-items.js';
import { openTeam } from '../src/team/open-team.js';
import { PACKAGE_ROOT } from '../src/package-root.js';
import { listen } from '../src/serve/listen.js';
import { openSession } from '../src/session/open-session.js';
import { CODE, serveModules } from './code-under-test.js';
import { floorServer, type FloorEvent, type FloorScript } from './serve-floor.js';
import type { LoadFigures } from './serve-load.js';
import { bytesByPart, cpuByPart, partLines } from './serve-parts.js';
import { splitLines, type SplitPoint } from './serve-split.js';
import { traceFileCalls } from './serve-trace.js';
import { median, QUICK } from './stats.js';
import { mainThreadTimes } from './thread-cpu.js';

/** Milliseconds on the monotonic clock every process of the machine shares (the load process stamps arrivals on it). */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

const SIZES = (process.env.SERVE_SESSIONS ?? (QUICK ? '100' : '100,1000')).split(',').map(Number);
const ROUNDS = Number(process.env.SERVE_ROUNDS ?? (QUICK ? 1 : 2));
const TURNS = Number(process.env.SERVE_TURNS ?? 6);
// SERVE_SPLIT=1,12: also runs the sessions at these turns each, and fits CPU per session to fixed + per turn (bench/serve-split.ts).
const SPLIT = (process.env.SERVE_SPLIT ?? '').split(',').filter(Boolean).map(Number);
const LATENCY_MS = 200;
// SERVE_ONLY=troupe (or floor) measures one of them (a profile, a look at one side).
const TARGETS = (process.env.SERVE_ONLY ? [process.env.SERVE_ONLY] : ['floor', 'troupe']) as ('floor' | 'troupe')[];
// SERVE_VARIANTS='before:BENCH_CODE_DIR=/tmp/base pool16:UV_THREADPOOL_SIZE=16': more troupe servers, each with these
// variables (another built tree, a pool size), run in every round beside the floor and troupe: before and after interleaved.
const VARIANTS = (process.env.SERVE_VARIANTS ?? '')
  .split(/\s+/)
  .filter(Boolean)
  .map((spec) => {
    const [name, ...vars] = spec.split(/[:;]/);
    return { name: name!, env: Object.fromEntries(vars.map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)])) as Record<string, string> };
  });
// Sessions each server serves before it is measured (SERVE_WARM_UP: more, to see what is still the JIT compiling the hot paths).
const WARM_UP = Number(process.env.SERVE_WARM_UP ?? 20);
// A turn's words arrive as this many streamed deltas (a real model streams; each is an SSE event).
export const DELTAS = 46;

/** A model that answers after `latency` ms, streaming its words: hands to the next persona it may reach, then asks the user after TURNS turns; tells `answered` when each answer left. */
export class LatencyModel implements ChatModel {
  constructor(
    private readonly latency: number,
    private readonly answered: (brief: string, turnId: string) => void = () => undefined,
  ) {}

  get label(): string {
    return `bench model (${this.latency} ms)`;
  }

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

/** What one run measured: the load process's turns and delays, the server process's CPU, memory, event-loop delay and GC. */
interface Figures {
  target: 'troupe' | 'floor';
  sessions: number;
  turns: number;
  seconds: number;
  cpuMsPerTurn: number;
  /** The part of cpuMsPerTurn spent in the kernel (file creates, writes, fsyncs, renames, sockets). */
  systemMsPerTurn: number;
  /** The server's context switches per turn, voluntary (it waited: a thread-pool call, a lock) and involuntary (preempted). */
  switchesPerTurn: number;
  preemptedPerTurn: number;
  /** Of cpuMsPerTurn and systemMsPerTurn, the main thread's (the event loop's). */
  mainMsPerTurn: number;
  mainSystemMsPerTurn: number;
  p50: number;
  p99: number;
  kibPerSession: number;
  /** Heap and external memory still held per session once the load is done (after a full GC): what an idle session keeps. */
  kibHeld: number;
  failed: number;
  eventsPerTurn: number;
  /** The server's event-loop delay (monitorEventLoopDelay) p99 and max, and its GC pauses: total and longest. */
  loopP99: number;
  loopMax: number;
  gcMs: number;
  gcMax: number;
  /** Of gcMs, the young generation's collections (scavenges: their cost is what survives them). */
  gcYoungMs: number;
  /** Turns whose answer reached a stream that was already connected (the rest were read from the log when it connected). */
  live: number;
  /** Seconds after the load began by which half and all of the sessions were created, and half and all of the streams connected. */
  createdP50: number;
  createdMax: number;
  connectedP50: number;
  connectedMax: number;
  /** With SERVE_PROFILE (CPU): the server's milliseconds by part (bench/serve-parts.ts). */
  parts?: [string, number][];
  /** With SERVE_PROFILE and SERVE_PROFILE_ALLOC: the sampled bytes by the part that allocated them. */
  heapParts?: [string, number][];
}

/** What the server process reports once the load is done. */
interface ServerFigures {
  cpuMs: number;
  systemMs: number;
  switches: number;
  preempted: number;
  /** Of cpuMs and systemMs, the main thread's (the event loop); the rest is libuv's pool and V8's helper threads. */
  mainMs: number;
  mainSystemMs: number;
  /** RSS at its peak less RSS before the first session, per session held (the warm-up ones too). */
  kibPeak: number;
  /** Heap used plus external memory after a full GC once the load is done, less the same before the first session, per session held. */
  kibHeld: number;
  answered: [string, number][];
  loopP99: number;
  loopMax: number;
  gcMs: number;
  gcMax: number;
  gcYoungMs: number;
  /** With SERVE_TRACE: what the creations waited on (bench/serve-trace.ts). */
  trace?: string[];
}

/** The server process: `target` on a port, told when the load begins and ends; measures only its own work. */
async function serverChild(target: 'troupe' | 'floor', sessions: number): Promise<void> {
  const answered: [string, number][] = [];
  const onAnswer = (brief: string, turnId: string) => answered.push([`${brief}#${turnId}`, monotonicMs()]);
  const dir = mkdtempSync(join(process.env.SERVE_DATA_ROOT ?? tmpdir(), `${target}-`));
  const script = await record();
  const eventsPerTurn = (script.start.length + script.turns.reduce((n, t) => n + t.events.length, 0)) / script.turns.length;
  let stopServer: () => Promise<void>;
  let fetchHandler: (request: Request) => Response | Promise<Response>;
  let listenOn = listen;
  if (target === 'troupe') {
    // troupe's server from the chosen tree (dist: what `troupe serve` runs); the floor is served by the same listener, from src.
    const code = await serveModules();
    const model = new LatencyModel(LATENCY_MS, onAnswer);
    const host = new code.SessionHost({
      store: new code.LowdbStore(dir),
      team: code.openTeam(PACKAGE_ROOT, {}, {}),
      teamDir: PACKAGE_ROOT,
      env: {},
      maxSessions: sessions + WARM_UP + 10,
      model: () => model,
    });
    fetchHandler = code.serveApp({ host, token: null, maxBodyBytes: 64 * 1024 }).fetch;
    stopServer = () => host.stopAll();
    listenOn = code.listen;
  } else {
    const floor = floorServer(script, { latencyMs: LATENCY_MS, answered: onAnswer });
    fetchHandler = floor.fetch;
    stopServer = async () => floor.stop();
  }
  const trace = process.env.SERVE_TRACE ? traceFileCalls() : null;
  if (trace) {
    const handler = fetchHandler;
    fetchHandler = async (request) => {
      const done = trace.request(request.method, new URL(request.url).pathname);
      const response = await handler(request);
      done();
      return response;
    };
  }
  const { server, port } = await listenOn(fetchHandler, { hostname: '127.0.0.1', port: 0 });
  // Memory is counted from before the warm-up sessions (a process's heap, once grown, stays), over every session it holds.
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const held = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const heldBefore = held();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);
  const send = (m: unknown) => new Promise<void>((done) => process.send!(m, () => done()));
  let measure: (() => ServerFigures) | null = null;
  let stopProfile = () => Promise.resolve();
  process.on('message', async (m: string) => {
    if (m === 'begin') {
      answered.length = 0;
      const loop = monitorEventLoopDelay({ resolution: 5 });
      loop.enable();
      const gc = { ms: 0, max: 0, young: 0 };
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          gc.ms += entry.duration;
          gc.max = Math.max(gc.max, entry.duration);
          if ((entry as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) gc.young += entry.duration;
        }
      });
      observer.observe({ entryTypes: ['gc'] });
      const profile = await profiler();
      trace?.begin();
      const cpu0 = process.cpuUsage();
      const usage0 = process.resourceUsage();
      const main0 = mainThreadTimes();
      measure = () => {
        const cpu = process.cpuUsage(cpu0);
        const usage = process.resourceUsage();
        const main = mainThreadTimes();
        const traced = trace?.end();
        stopProfile = () => profile?.stop() ?? Promise.resolve();
        clearInterval(sampler);
        loop.disable();
        observer.disconnect();
        // After the CPU was read: what the sessions still hold, their garbage collected.
        global.gc?.();
        return {
          cpuMs: (cpu.user + cpu.system) / 1000,
          systemMs: cpu.system / 1000,
          switches: usage.voluntaryContextSwitches - usage0.voluntaryContextSwitches,
          preempted: usage.involuntaryContextSwitches - usage0.involuntaryContextSwitches,
          mainMs: main && main0 ? main.user + main.system - main0.user - main0.system : Number.NaN,
          mainSystemMs: main && main0 ? main.system - main0.system : Number.NaN,
          kibPeak: (rssPeak - rssBefore) / 1024 / (sessions + WARM_UP),
          kibHeld: (held() - heldBefore) / 1024 / (sessions + WARM_UP),
          answered,
          loopP99: loop.percentile(99) / 1e6,
          loopMax: loop.max / 1e6,
          gcMs: gc.ms,
          gcMax: gc.max,
          gcYoungMs: gc.young,
          ...(traced ? { trace: traced.lines } : {}),
        };
      };
      await send({ begun: true });
    } else if (m === 'end' && measure) {
      const figures = measure();
      await stopProfile();
      await send(figures);
      await stopServer();
      server.close();
      process.exit(0);
    }
  });
  await send({ port, eventsPerTurn });
}

/** With SERVE_PROFILE=dir, profiles this process (the server) from now until `stop`, into dir/<target>-<sessions>-<pid>.cpuprofile (.heapprofile with SERVE_PROFILE_ALLOC). */
async function profiler(): Promise<{ stop: () => Promise<void> } | null> {
  const dir = process.env.SERVE_PROFILE;
  if (!dir) return null;
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) => new Promise<unknown>((done, fail) => session.post(method, params, (error, result) => (error ? fail(error) : done(result))));
  const file = join(dir, `${process.env.SERVE_CHILD?.replace(':', '-')}-${process.pid}`);
  // SERVE_PROFILE_ALLOC=1: where the server allocates (every sampled allocation, collected or not), not where its CPU goes;
  // SERVE_PROFILE_ALLOC=live: only what is still held when the load is done (what its sessions keep), by where it was allocated;
  // SERVE_PROFILE_ALLOC=survived: what the young generation did not collect (it outlived a scavenge, or was allocated in the old space at once): what scavenges copy and full GCs collect.
  if (process.env.SERVE_PROFILE_ALLOC) {
    const mode = process.env.SERVE_PROFILE_ALLOC;
    await post('HeapProfiler.enable');
    await post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: mode !== 'live', includeObjectsCollectedByMinorGC: mode !== 'live' && mode !== 'survived' });
    return {
      stop: async () => {
        const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: unknown };
        mkdirSync(dir, { recursive: true });
        writeFileSync(`${file}.heapprofile`, JSON.stringify(profile));
      },
    };
  }
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      mkdirSync(dir, { recursive: true });
      writeFileSync(`${file}.cpuprofile`, JSON.stringify(profile));
    },
  };
}

/** A Node process running `file` with `env`, spoken to over IPC. */
function child(file: string, args: string[], env: Record<string, string>, flags: string[] = []) {
  const proc = spawn(process.execPath, [...flags, '--import', 'tsx', file, ...args], {
    cwd: join(import.meta.dirname, '..'),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((done) => proc.once('exit', done));
  const next = <T>(): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      proc.once('message', (m) => resolve(m as T));
      void exited.then((code) => reject(new Error(`${file} exited ${code}`)));
    });
  return { proc, next, exited };
}

/**
 * One run: the server (troupe or the floor) in a process of its own, the load (bench/serve-load.ts) in another;
 * the server's CPU and memory are counted from when the load begins to when it is done. SERVE_NODE_FLAGS adds
 * Node flags to the server process (`--cpu-prof`, `--trace-gc`) to see where its time goes.
 */
async function measure(target: 'troupe' | 'floor', sessions: number, turns = TURNS, env: Record<string, string> = {}): Promise<Figures> {
  const flags = ['--expose-gc', ...(process.env.SERVE_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
  const server = child(fileURLToPath(import.meta.url), [], { ...env, SERVE_CHILD: `${target}:${sessions}`, SERVE_TURNS: String(turns), SERVE_DATA_ROOT: dataRoot() }, flags);
  const { port, eventsPerTurn } = await server.next<{ port: number; eventsPerTurn: number }>();
  // Both servers first serve a few sessions unmeasured: what a process does once (loading the tokenizer,
  // compiling the hot paths) is not a cost per turn.
  const warm = child(join(import.meta.dirname, 'serve-load.ts'), [`http://127.0.0.1:${port}`, String(WARM_UP)], {});
  await warm.next<LoadFigures>();
  await warm.exited;
  server.proc.send('begin');
  await server.next();
  const load = child(join(import.meta.dirname, 'serve-load.ts'), [`http://127.0.0.1:${port}`, String(sessions)], {});
  const seen = await load.next<LoadFigures>();
  await load.exited;
  server.proc.send('end');
  const work = await server.next<ServerFigures>();
  if ((await server.exited) !== 0) throw new Error(`serve bench server (${target}, ${sessions} sessions) failed`);
  const profile = process.env.SERVE_PROFILE ? join(process.env.SERVE_PROFILE, `${target}-${sessions}-${server.proc.pid}.${process.env.SERVE_PROFILE_ALLOC ? 'heapprofile' : 'cpuprofile'}`) : null;
  if (work.trace) process.stdout.write(`    ${target} trace (SERVE_TRACE):\n${work.trace.map((l) => `      ${l}\n`).join('')}`);
  const answered = new Map(work.answered);
  const connected = new Map(seen.connected);
  // Turns answered before a stream was connected arrive from the stored log, not live: they are not delays.
  const delays = seen.arrivals
    .flatMap(([key, at]) => {
      const answer = answered.get(key);
      const since = connected.get(key.split('#')[0]!);
      return answer !== undefined && since !== undefined && answer >= since ? [at - answer] : [];
    })
    .sort((a, b) => a - b);
  if (delays.length === 0)
    process.stderr.write(
      `serve bench (${target}, ${sessions}): no delays: ${seen.arrivals.length} arrivals (${seen.arrivals[0]?.join(' ')}), ${answered.size} answers (${work.answered[0]?.join(' ')}), ${connected.size} connected\n`,
    );
  return {
    target,
    sessions,
    turns: seen.turns,
    seconds: seen.seconds,
    cpuMsPerTurn: work.cpuMs / Math.max(1, seen.turns),
    systemMsPerTurn: work.systemMs / Math.max(1, seen.turns),
    switchesPerTurn: work.switches / Math.max(1, seen.turns),
    preemptedPerTurn: work.preempted / Math.max(1, seen.turns),
    mainMsPerTurn: work.mainMs / Math.max(1, seen.turns),
    mainSystemMsPerTurn: work.mainSystemMs / Math.max(1, seen.turns),
    p50: median(delays),
    p99: delays[Math.min(delays.length - 1, Math.floor(delays.length * 0.99))] ?? 0,
    kibPerSession: work.kibPeak,
    kibHeld: work.kibHeld,
    failed: seen.failed,
    eventsPerTurn,
    loopP99: work.loopP99,
    loopMax: work.loopMax,
    gcMs: work.gcMs / Math.max(1, seen.turns),
    gcMax: work.gcMax,
    gcYoungMs: work.gcYoungMs / Math.max(1, seen.turns),
    live: delays.length,
    createdP50: (median(seen.created) - seen.started) / 1000,
    createdMax: (Math.max(...seen.created) - seen.started) / 1000,
    connectedP50: (median(seen.connected.map(([, at]) => at)) - seen.started) / 1000,
    connectedMax: (Math.max(...seen.connected.map(([, at]) => at)) - seen.started) / 1000,
    ...(profile ? (process.env.SERVE_PROFILE_ALLOC ? { heapParts: bytesByPart(profile) } : { parts: cpuByPart(profile) }) : {}),
  };
}

/** What a heap profile's bytes are (SERVE_PROFILE_ALLOC: every allocation, what the young generation did not collect, or what is still held). */
function heapWhat(): string {
  const mode = process.env.SERVE_PROFILE_ALLOC;
  return mode === 'survived' ? 'not collected young: kept past a scavenge, or allocated in the old space at once' : mode === 'live' ? 'still held once the load is done' : 'allocated';
}

/** Milliseconds (or bytes) by part summed over runs. */
function sumParts(runs: Figures[], key: 'parts' | 'heapParts' = 'parts'): [string, number][] {
  const sum = new Map<string, number>();
  for (const f of runs) for (const [part, ms] of f[key] ?? []) sum.set(part, (sum.get(part) ?? 0) + ms);
  return [...sum].sort((a, b) => b[1] - a[1]);
}

// Where every run's data dir is made (TMPDIR chooses the file system: TMPDIR=/dev/shm for tmpfs), removed once the
// bench is done, not after each run: a data dir removed frees every inode in it, and on an ext4 without a journal the
// creates of the next 30 s scan past each inode freed; the next run's server was measured in its harness's cleanup.
let root: string | null = null;
const dataRoot = () => (root ??= mkdtempSync(join(tmpdir(), 'troupe-serve-bench-')));

export default async function serve(): Promise<void> {
  try {
    await serveAll();
  } finally {
    if (root) rmSync(root, { recursive: true, force: true });
  }
}

/** Every size, ROUNDS interleaved runs each. */
async function serveAll(): Promise<void> {
  process.stdout.write(
    `sessions at once, ${TURNS} persona turns each, model latency ${LATENCY_MS} ms streaming ${DELTAS} deltas a turn, real HTTP + SSE (clients in a process of their own, bench/serve-load.ts); troupe (from ${CODE}/) on a lowdb store vs the floor server (bench/serve-floor.ts); median of ${ROUNDS} interleaved run(s), each server in a process of its own; CPU, RSS, loop delay and GC are the server process's\n`,
  );
  for (const sessions of SIZES) {
    const runs: Record<string, Figures[]> & Record<'troupe' | 'floor', Figures[]> = { troupe: [], floor: [] };
    for (const v of VARIANTS) runs[v.name] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const target of TARGETS) runs[target].push(await measure(target, sessions));
      for (const v of VARIANTS) runs[v.name]!.push(await measure('troupe', sessions, TURNS, v.env));
    }
    const m = (target: string, key: keyof Figures) => median(runs[target]!.map((f) => f[key] as number));
    const rate = (t: string) => median(runs[t]!.map((f) => f.turns / f.seconds));
    const line = (t: string) =>
      `    ${t.padEnd(6)} ${rate(t).toFixed(0).padStart(5)} turns/s  CPU ${m(t, 'cpuMsPerTurn').toFixed(2)} ms/turn (system ${m(t, 'systemMsPerTurn').toFixed(2)}; main thread ${m(t, 'mainMsPerTurn').toFixed(2)}, system ${m(t, 'mainSystemMsPerTurn').toFixed(2)}; context switches ${m(t, 'switchesPerTurn').toFixed(1)}, preempted ${m(t, 'preemptedPerTurn').toFixed(1)})  answer -> SSE p50 ${m(t, 'p50').toFixed(1)} ms, p99 ${m(t, 'p99').toFixed(1)} ms  RSS ${m(t, 'kibPerSession').toFixed(0)} KiB/session, held ${m(t, 'kibHeld').toFixed(0)} KiB/session  loop delay p99 ${m(t, 'loopP99').toFixed(0)} ms, max ${m(t, 'loopMax').toFixed(0)} ms  GC ${m(t, 'gcMs').toFixed(2)} ms/turn (scavenges ${m(t, 'gcYoungMs').toFixed(2)}), longest ${m(t, 'gcMax').toFixed(0)} ms${runs[t]!.some((f) => f.failed) ? `  (${runs[t]!.map((f) => f.failed).join('/')} failed)` : ''}\n`;
    process.stdout.write(`  ${sessions} sessions (${m('troupe', 'eventsPerTurn').toFixed(0)} SSE events per turn; ideal ${(sessions / (LATENCY_MS / 1000)).toFixed(0)} turns/s):\n`);
    process.stdout.write(line('floor'));
    process.stdout.write(line('troupe'));
    for (const v of VARIANTS) process.stdout.write(line(v.name));
    const eachOf = (t: string) => runs[t]!.map((f, i) => `${(f.turns / f.seconds / ((runs.floor[i]?.turns ?? Number.NaN) / (runs.floor[i]?.seconds ?? 1))).toFixed(2)}x`).join(', ');
    const each = eachOf('troupe');
    const timeline = (t: string) =>
      `    ${t.padEnd(6)} sessions created p50 ${m(t, 'createdP50').toFixed(2)} s, all ${m(t, 'createdMax').toFixed(2)} s; streams connected p50 ${m(t, 'connectedP50').toFixed(2)} s, all ${m(t, 'connectedMax').toFixed(2)} s; turns streamed live ${(
        (100 * runs[t]!.reduce((n, f) => n + f.live, 0)) /
          Math.max(
            1,
            runs[t]!.reduce((n, f) => n + f.turns, 0),
          )
      ).toFixed(0)}% (the rest read from the log as their stream connected)\n`;
    for (const t of [...TARGETS, ...VARIANTS.map((v) => v.name)]) process.stdout.write(timeline(t));
    if (runs.troupe.some((f) => f.parts) && runs.floor.some((f) => f.parts)) {
      const turns = (t: 'troupe' | 'floor') => runs[t].reduce((n, f) => n + (f.parts ? f.turns : 0), 0);
      for (const l of partLines(sumParts(runs.troupe), sumParts(runs.floor), { troupe: turns('troupe'), floor: turns('floor') })) process.stdout.write(`${l}\n`);
    }
    if (runs.troupe.some((f) => f.heapParts) && runs.floor.some((f) => f.heapParts)) {
      const turns = (t: 'troupe' | 'floor') => runs[t].reduce((n, f) => n + (f.heapParts ? f.turns : 0), 0);
      const lines = partLines(sumParts(runs.troupe, 'heapParts'), sumParts(runs.floor, 'heapParts'), { troupe: turns('troupe'), floor: turns('floor') }, { unit: 'bytes', what: heapWhat() });
      for (const l of lines) process.stdout.write(`${l}\n`);
    }
    process.stdout.write(
      `    troupe ÷ floor: throughput ${(rate('troupe') / rate('floor')).toFixed(2)}x (target >= 0.8x; each round ${each}), CPU per turn ${(m('troupe', 'cpuMsPerTurn') / m('floor', 'cpuMsPerTurn')).toFixed(2)}x, p99 ${(m('troupe', 'p99') / m('floor', 'p99')).toFixed(2)}x, RSS per session ${(m('troupe', 'kibPerSession') / m('floor', 'kibPerSession')).toFixed(2)}x, held per session ${(m('troupe', 'kibHeld') / m('floor', 'kibHeld')).toFixed(2)}x\n`,
    );
    for (const v of VARIANTS) {
      process.stdout.write(
        `    ${v.name} ÷ floor: throughput ${(rate(v.name) / rate('floor')).toFixed(2)}x (each round ${eachOf(v.name)}), CPU per turn ${(m(v.name, 'cpuMsPerTurn') / m('floor', 'cpuMsPerTurn')).toFixed(2)}x, p99 ${(m(v.name, 'p99') / m('floor', 'p99')).toFixed(2)}x\n`,
      );
    }
    if (SPLIT.length > 0 && TARGETS.length === 2) await split(sessions, runs);
  }
}

/** The SERVE_SPLIT runs (interleaved, ROUNDS each) beside the ones at TURNS, and the line fitted through them all. */
async function split(sessions: number, atTurns: Record<'troupe' | 'floor', Figures[]>): Promise<void> {
  const points: Record<'troupe' | 'floor', SplitPoint[]> = { troupe: [], floor: [] };
  const add = (t: 'troupe' | 'floor', f: Figures) => {
    const turnsPerSession = f.turns / sessions;
    points[t].push({ turnsPerSession, cpuMsPerSession: f.cpuMsPerTurn * turnsPerSession, systemMsPerSession: f.systemMsPerTurn * turnsPerSession });
  };
  for (const t of TARGETS) for (const f of atTurns[t]) add(t, f);
  for (const turns of SPLIT.filter((n) => n !== TURNS)) for (let r = 0; r < ROUNDS; r++) for (const t of TARGETS) add(t, await measure(t, sessions, turns));
  for (const l of splitLines(points, TURNS)) process.stdout.write(`${l}\n`);
}

const role = process.env.SERVE_CHILD;
if (role && import.meta.url === `file://${process.argv[1]}`) {
  const [target, sessions] = role.split(':') as ['troupe' | 'floor', string];
  await serverChild(target, Number(sessions));
} else if (import.meta.url === `file://${process.argv[1]}`) await serve();

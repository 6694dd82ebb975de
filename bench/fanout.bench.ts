// Many readers of one session: a session streaming its words (a delta every 5 ms) and READERS SSE readers of
// it (in a process of their own) connecting at once; /healthz is asked every 50 ms meanwhile. An event goes
// to every reader serialised and redacted once, so the server's event loop stays free: /healthz answers in
// under 10 ms (the target) while they connect and read.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { PACKAGE_ROOT } from '../src/package-root.js';
import { fanoutFloor } from './fanout-floor.js';
import { CODE, serveModules } from './code-under-test.js';
import { allocationSites, type HeapProfileNode, sampleAllocations } from './allocation-sites.js';
import { blameLine, blameSlowProbes, blameTally, type CpuProfile, holdTally, type LoopGap, slowProbeTimelines } from './probe-blame.js';
import { median, QUICK } from './stats.js';
import { mainThreadCpu } from './thread-cpu.js';

const READERS = Number(process.env.FANOUT_READERS ?? (QUICK ? 300 : 1000));
// Each reader reads this many deltas (a delta every 5 ms: about 3 s of streaming).
const DELTAS = 600;
const EVERY_MS = 5;
// The target: /healthz answers within this while readers connect and read.
const SLOW_MS = 10;
// FANOUT_PROFILE=<dir>: the server's CPU profile from the readers' first connection to their last byte goes
// there (run.cpuprofile, with gaps.json: the loop's gaps, the probes and the phase marks). FANOUT_BLAME=1 (or
// a FANOUT_PROFILE) prints, for each /healthz slower than BLAME_MS, what the server's loop ran while it waited.
const PROFILE_DIR = process.env.FANOUT_PROFILE;
const BLAME = PROFILE_DIR !== undefined || process.env.FANOUT_BLAME === '1';
const BLAME_MS = 5;
// The server's own holds (a loop gap's time on its main thread's CPU) longer than this are put down to what ran.
const HOLD_MS = 8;
// FANOUT_ALLOC=1: the server's allocations while the readers read (sampled, garbage included), by site.
const ALLOC = process.env.FANOUT_ALLOC === '1';

/** Profiles this process (the server) when BLAME: one profile for the whole run, so no phase pays for saving another's (a stop and a save stalled the loop 80-100 ms); `stop` returns it. */
async function runProfiler(): Promise<{ stop: () => Promise<CpuProfile | null> }> {
  if (!BLAME) return { stop: async () => null };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      return profile as unknown as CpuProfile;
    },
  };
}

/** Streams a long answer a word every EVERY_MS, then hands to the next persona, for ever (the bench stops it). */
class StreamingModel implements ChatModel {
  readonly label = 'streaming bench model';
  async generate(request: ChatRequest): Promise<ChatResponse> {
    const usage = { promptTokens: 100, completionTokens: 200 };
    if (request.meta.purpose === 'summary') return { text: '{"decisions":[],"discussions":["bench"],"pending":[]}', toolCalls: [], usage, finishReason: 'stop', model: 'bench' };
    const words: string[] = [];
    for (let i = 0; i < 200; i++) {
      await new Promise((r) => setTimeout(r, EVERY_MS));
      if (request.signal?.aborted) throw new Error('aborted');
      const word = `word${i} `;
      words.push(word);
      request.onDelta?.({ type: 'text', text: word });
    }
    const turn = Number((request.meta.turnId ?? 't1').slice(1));
    const next = request.meta.handoffTo?.[turn % (request.meta.handoffTo.length || 1)];
    return {
      text: words.join(''),
      toolCalls: [{ name: 'handoff_directive', arguments: JSON.stringify({ transition: 'HANDOFF_TO_AGENT', next_agent: next }) }],
      usage,
      finishReason: 'tool_calls',
      model: 'bench',
    };
  }
}

/** Each server in a process of its own: neither measures in a heap the other grew. */
export default async function fanout(): Promise<void> {
  for (const target of process.env.FANOUT_TARGET ? [process.env.FANOUT_TARGET] : ['troupe', 'floor']) {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], { env: { ...process.env, FANOUT_TARGET: target }, stdio: ['ignore', 'inherit', 'inherit'] });
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    if (code !== 0) throw new Error(`fanout bench (${target}) exited ${code}`);
  }
}

/** The server measured: troupe's (from dist/, one streaming session, let through its first turns) or the floor (bench/fanout-floor.ts). */
async function serverFor(target: 'troupe' | 'floor'): Promise<{ base: string; id: string; stop: () => Promise<void> }> {
  if (target === 'floor') {
    const { deltaBatchMs } = await import('../src/serve/event-feed.js');
    const floor = await fanoutFloor(EVERY_MS, deltaBatchMs);
    return { base: `http://127.0.0.1:${floor.port}`, id: floor.id, stop: async () => floor.stop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'troupe-fanout-'));
  const { openTeam, SessionHost, LowdbStore, listen, serveApp } = await serveModules();
  const team = openTeam(PACKAGE_ROOT, { maxTurns: 10_000 }, {});
  team.def.limits = { ...team.def.limits, ping_pong: 1_000_000, max_reworks_per_pair: 1_000_000 };
  const host = new SessionHost({ store: new LowdbStore(dir), team, teamDir: PACKAGE_ROOT, env: {}, maxSessions: 10, model: () => new StreamingModel() });
  const { server, port } = await listen(serveApp({ host, token: null, maxBodyBytes: 64 * 1024 }).fetch, { hostname: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${port}`;
  const created = await fetch(`${base}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ brief: 'A lighthouse keeper game' }) });
  const { id } = (await created.json()) as { id: string };
  // The server is measured warm: a first turn loads what a process loads once (the tokenizer alone stalls the
  // loop 0.4 s), so the session is let through its first turns before anyone probes.
  for (;;) {
    const { turn } = (await (await fetch(`${base}/v1/sessions/${id}`)).json()) as { turn: number };
    if (turn >= 3) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    id,
    stop: async () => {
      await host.stopAll();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function bench(target: 'troupe' | 'floor'): Promise<void> {
  const { base, id, stop } = await serverFor(target);

  // /healthz every 50 ms from a process of its own, from before the readers come until they are done; the
  // server's event-loop delay and GC pauses are watched in each phase (what its stalls are made of).
  const probes: [number, number][] = [];
  const prober = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fanout-readers.ts'), 'probe', `${base}/healthz`], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  prober.on('message', (m) => probes.push(m as [number, number]));
  const monotonic = () => Number(process.hrtime.bigint()) / 1e6;
  while (probes.length < 3) await new Promise((r) => setTimeout(r, 50));
  // The probe's first answers include its own start (loading fetch, opening the connection): not the server's.
  const idleFrom = monotonic();
  // The server's longest event-loop stall in each phase, and the CPU time its main thread used in it: a stall
  // with little CPU is the machine's load (the thread was not running), one with as much CPU is the server's
  // work. The main thread's own time (Linux's schedstat; the process's elsewhere), not the process's: V8's GC
  // helper threads run beside it, and a loaded machine's wall time is mostly other processes' turn. Every gap
  // of more than GAP_MS is kept, to tell for each slow probe where its time went.
  const GAP_MS = 4;
  const gaps: LoopGap[] = [];
  const stalls: Record<string, { wall: number; cpu: number }> = {};
  let worst = { wall: 0, cpu: 0 };
  const threadCpuMs = mainThreadCpu();
  let last = { at: monotonic(), cpu: threadCpuMs() };
  const ticker = setInterval(() => {
    const now = { at: monotonic(), cpu: threadCpuMs() };
    const gap = { at: last.at, wall: now.at - last.at, cpu: now.cpu - last.cpu };
    if (gap.wall > GAP_MS) gaps.push(gap);
    if (gap.wall > worst.wall) worst = gap;
    last = now;
  }, 2);
  // Started before the idle second, so starting it is not charged to the readers.
  const profiler = await runProfiler();
  await new Promise((r) => setTimeout(r, 1000));
  const watch = () => {
    const loop = monitorEventLoopDelay({ resolution: 2 });
    loop.enable();
    const gc = { ms: 0, max: 0, count: 0 };
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        gc.ms += entry.duration;
        gc.count += 1;
        gc.max = Math.max(gc.max, entry.duration);
      }
    });
    observer.observe({ entryTypes: ['gc'] });
    return () => {
      loop.disable();
      observer.disconnect();
      return { loopP99: loop.percentile(99) / 1e6, loopMax: loop.max / 1e6, gc };
    };
  };
  const marks = { connecting: monotonic(), reading: Number.POSITIVE_INFINITY, done: Number.POSITIVE_INFINITY };
  const watched: Record<string, ReturnType<ReturnType<typeof watch>>> = {};
  stalls.idle = worst;
  worst = { wall: 0, cpu: 0 };
  let watching = watch();
  const cpu0 = process.cpuUsage();
  const readers = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fanout-readers.ts'), `${base}/v1/sessions/${id}/events`, String(READERS), String(DELTAS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  // Set by the readers' first line (a holder: a variable set in a callback is narrowed to its initial null).
  const allocations: { sampling: Promise<() => Promise<HeapProfileNode>> | null } = { sampling: null };
  readers.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('"connected"') && marks.reading === Number.POSITIVE_INFINITY) {
      marks.reading = monotonic();
      if (ALLOC) allocations.sampling = sampleAllocations();
      stalls.connecting = worst;
      watched.connecting = watching();
      watching = watch();
      worst = { wall: 0, cpu: 0 };
    }
  });
  await new Promise((done) => readers.once('exit', done));
  marks.done = monotonic();
  const allocated = allocations.sampling ? await (await allocations.sampling)() : null;
  const cpu = process.cpuUsage(cpu0);
  stalls.reading = worst;
  watched.reading = watching();
  clearInterval(ticker);
  prober.kill();
  const profiled = await profiler.stop();
  if (PROFILE_DIR && profiled) {
    writeFileSync(join(PROFILE_DIR, 'run.cpuprofile'), JSON.stringify(profiled));
    writeFileSync(join(PROFILE_DIR, 'gaps.json'), JSON.stringify({ gaps, probes, marks }));
  }
  const within = (from: number, to: number) => probes.filter(([at]) => at >= from && at < to);
  const phase = (from: number, to: number) => within(from, to).map(([, took]) => took);
  const idle = phase(idleFrom, marks.connecting);
  const connecting = phase(marks.connecting, marks.reading);
  const reading = phase(marks.reading, marks.done);
  const lines = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { connected?: number; done?: number; cpu?: number; short?: number; bytes?: number });
  const connected = lines.find((l) => l.connected !== undefined)?.connected;
  const done = lines.find((l) => l.done !== undefined)!;
  const summary = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
    return `median ${median(xs).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms (${xs.length} probes)`;
  };
  // The server's own holds: a gap's time on the CPU (at most its wall time). On a loaded machine the wall time of
  // a gap is mostly other processes' turn; this is the part the server's code decides.
  const holds = (from: number, to: number) => {
    const own = gaps.filter((g) => g.at >= from && g.at < to).map((g) => Math.min(g.wall, g.cpu));
    const over = own.filter((ms) => ms > SLOW_MS / 2).sort((a, b) => a - b);
    return `\n      the server's own holds (a loop gap's time on its main thread's CPU) over ${SLOW_MS / 2} ms: ${over.length}, longest ${(over.at(-1) ?? 0).toFixed(1)} ms, the next ${(over.at(-2) ?? 0).toFixed(1)} ms`;
  };
  const stall = (s?: { wall: number; cpu: number }, w?: ReturnType<ReturnType<typeof watch>>, xs?: [number, number][]) =>
    (xs && xs.length > 0 ? holds(xs[0]![0], xs.at(-1)![0] + xs.at(-1)![1]) : '') +
    (xs ? `\n      ${blameLine(blameSlowProbes(xs, gaps, SLOW_MS), SLOW_MS)}` : '') +
    (s ? `\n      the server's longest stall ${s.wall.toFixed(0)} ms, ${s.cpu.toFixed(0)} ms of it on the CPU` : '') +
    (w ? `; its event-loop delay p99 ${w.loopP99.toFixed(1)} ms, max ${w.loopMax.toFixed(0)} ms; GC ${w.gc.count} pauses, ${w.gc.ms.toFixed(0)} ms in all, longest ${w.gc.max.toFixed(1)} ms` : '');
  process.stdout.write(
    `one session streaming a delta every ${EVERY_MS} ms, ${READERS} SSE readers (another process) connecting at once and reading ${DELTAS} deltas each; /healthz asked every 50 ms (by a third process); ${target === 'floor' ? 'the FLOOR: bench/fanout-floor.ts, node:http writing one prebuilt buffer per batch to every reader, no engine' : `troupe's server from ${CODE}/`}:\n`,
  );
  process.stdout.write(
    `  all ${READERS} readers connected in ${connected !== undefined ? `${(connected / 1000).toFixed(2)} s` : 'never'}; all done in ${((done.done ?? 0) / 1000).toFixed(1)} s${done.short ? ` (${done.short} read fewer deltas)` : ''}; ${((done.bytes ?? 0) / 1048576).toFixed(0)} MiB sent\n`,
  );
  process.stdout.write(`  /healthz before the readers:  ${summary(idle)}${stall(stalls.idle, undefined, within(idleFrom, marks.connecting))}\n`);
  process.stdout.write(`  /healthz while they connect:  ${summary(connecting)}${stall(stalls.connecting, watched.connecting, within(marks.connecting, marks.reading))}\n`);
  process.stdout.write(`  /healthz while they read:     ${summary(reading)}   (target < 10 ms)${stall(stalls.reading, watched.reading, within(marks.reading, marks.done))}\n`);
  process.stdout.write(
    `  server CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms (the readers' process: ${(done.cpu ?? 0).toFixed(0)} ms) for ${READERS * DELTAS} delta deliveries: ${((cpu.user + cpu.system) / (READERS * DELTAS)).toFixed(2)} µs per delta per reader\n`,
  );
  if (allocated) {
    const sites = allocationSites(allocated);
    const total = sites.reduce((n, s) => n + s.bytes, 0);
    process.stdout.write(
      `  the server allocated ${(total / 1048576).toFixed(1)} MiB while they read (sampled, garbage included): ${((total / (READERS * DELTAS)) * 1).toFixed(1)} bytes per delta per reader; the most:\n${sites
        .slice(0, 20)
        .map((s) => `    ${(s.bytes / 1048576).toFixed(2)} MiB  ${s.site}`)
        .join('\n')}\n`,
    );
  }
  if (profiled) {
    const lines = slowProbeTimelines(profiled, within(marks.connecting, marks.done), BLAME_MS, marks.connecting);
    for (const [name, from, to] of [
      ['connecting', marks.connecting, marks.reading],
      ['reading', marks.reading, marks.done],
    ] as const) {
      const tally = [...blameTally(profiled, within(from, to), BLAME_MS).entries()].sort((a, b) => b[1] - a[1]);
      process.stdout.write(
        `  /healthz over ${BLAME_MS} ms while ${name === 'connecting' ? 'they connect' : 'they read'}, by what held the loop longest while it waited: ${tally.map(([k, n]) => `${k} ${n}`).join('; ') || 'none'}\n`,
      );
      const holds = [
        ...holdTally(
          profiled,
          gaps.filter((g) => g.at >= from && g.at < to),
          HOLD_MS,
        ).entries(),
      ].sort((a, b) => b[1].ms - a[1].ms);
      process.stdout.write(
        `  the server's own holds over ${HOLD_MS} ms while ${name === 'connecting' ? 'they connect' : 'they read'}, by the task that took most of each: ${holds.map(([k, t]) => `${k} ${t.count} (${t.ms.toFixed(0)} ms)`).join('; ') || 'none'}\n`,
      );
    }
    if (process.env.FANOUT_BLAME_LINES !== '0')
      process.stdout.write(
        `  what the server's loop ran while each /healthz over ${BLAME_MS} ms waited (ms from when it was sent; +0 is when the readers start; they read from +${(marks.reading - marks.connecting).toFixed(0)} ms):\n${lines.map((l) => `    ${l}`).join('\n')}\n`,
      );
  }
  await stop();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // tsx turns source maps on for this process, and then every error's stack is mapped through them when read:
  // Node reads the stack of each reader's reset error (1,000 readers leaving held the loop 40 ms for it), a
  // cost `troupe serve` (bin/troupe, no --enable-source-maps) does not have. Off, as users run it.
  process.setSourceMapsEnabled(false);
  // FANOUT_TARGET=troupe (or floor) measures one of them.
  for (const target of process.env.FANOUT_TARGET ? [process.env.FANOUT_TARGET as 'troupe' | 'floor'] : (['troupe', 'floor'] as const)) await bench(target);
  process.exit(0);
}

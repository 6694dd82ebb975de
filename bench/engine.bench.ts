// Engine overhead per transition with a zero-latency model: the pure step() as sessions grow and teams
// widen, the bare session and the path the CLI runs (rolling memory, the journal on disk) around an instant
// model, interleaved in one run. "Bare" is openSession with memory and store off: the kernel, step(), the
// effect runner, the full-history prompt (not counted in tokens), directive parsing, events, predictions and
// the usage meter with the price table (every session meters its calls, so both sides do; there is no
// session without one). The CLI path adds the rolling memory (token-counted prompts, pins, summary calls
// with their usage) and the sealed journal with its checkpoints. The instant model reports usage and
// pins a distinct decision every turn, as real sessions do. Both sides make the same persona calls; the
// memory's summary calls are model work only the CLI path does, counted in its layer and printed per transition.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { MachineDefinition } from '../src/engine/definition.js';
import type { SessionState } from '../src/engine/session.js';
import { initialState, step } from '../src/engine/step.js';
import { compileTeam } from '../src/team/compile-team.js';
import { loadTeamOrThrow, type LoadedTeam } from '../src/config/load-team.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { openSession } from '../src/session/open-session.js';
import { LowdbStore } from '../src/store/lowdb-store.js';
import { redactedJson, redactorFrom } from '../src/llm/redact.js';
import { slimRecord } from '../src/store/journal-codec.js';
import { ENGINE_SEMANTICS } from '../src/engine/semantics.js';
import { CHAIN_START, sealLineInto } from '../src/store/journal-chain.js';
import { JournalWriter } from '../src/store/journal-file.js';
import type { JournalRecord } from '../src/store/session-file.js';
import type { SessionHandle } from '../src/store/store.js';
import { allocationSites, sampleAllocations, type HeapProfileNode } from './allocation-sites.js';
import { layerBreakdown } from './layer-breakdown.js';
import { generatedTeam } from './team-fixtures.js';
import { interleaved, median, ms, QUICK, ratio } from './stats.js';
import { mainThreadCpu, threadCpuKnown } from './thread-cpu.js';

const TURNS = 200;
// Session figures are per transition from this turn on: opening, starting and ending a session are not transitions.
const FROM_TURN = 20;
const STEP_RUNS = QUICK ? 5 : 9;
const SESSION_RUNS = QUICK ? 5 : 15;
// Rounds of whole sessions (every variant) before any is timed. V8 optimises the CLI path's code over several
// sessions: after 2 rounds its helper threads still compiled ~50 µs of CPU per transition (main thread + helpers,
// 8 personas: cli 123+66 at round 2, 80+6 from round 11 on; bare 55+18, 45+6), so the CPU ratio measured the
// JIT's warm-up, not the layers. From 10 on the helpers' CPU is the collector's, alike for every variant.
const SESSION_WARMUP = Number(process.env.ENGINE_SESSION_WARMUP ?? (QUICK ? 2 : 10));

/**
 * Deterministic pseudo-random handoffs with two alternatives and a key decision of their own, with usage (as
 * a server reports it), answered as soon as the event loop turns (as a call over the network is: the
 * session's own I/O, its checkpoint writes, goes on meanwhile).
 */
export class InstantModel implements ChatModel {
  readonly label = 'instant';
  private seed = 7;
  private calls = 0;
  /** Summary calls answered so far (the rolling memory's own model work). */
  summaries = 0;
  constructor(private readonly ids: string[]) {}
  private pick(not: string): string {
    let id = not;
    while (id === not) {
      this.seed = (this.seed * 1103515245 + 12345) % 2147483648;
      id = this.ids[this.seed % this.ids.length]!;
    }
    return id;
  }
  async generate(req: ChatRequest): Promise<ChatResponse> {
    await new Promise((r) => setImmediate(r));
    this.calls += 1;
    if (req.meta.purpose === 'summary') {
      this.summaries += 1;
      return {
        text: `{"decisions":["d${this.calls}"],"discussions":["talk"],"pending":[]}`,
        toolCalls: [],
        usage: { promptTokens: 400, completionTokens: 30 },
        finishReason: 'stop',
        model: 'instant',
      };
    }
    const self = req.meta.persona!;
    const d = {
      transition: 'APPROVE_AND_HANDOFF',
      next_agent: this.pick(self),
      urgency: 0.5,
      dependency: 0.6,
      user_intent: 0.4,
      key_decisions: [`decision ${this.calls} on topic${this.seed % 50}`],
      alternatives: [
        { next_agent: this.pick(self), urgency: 0.4, dependency: 0.5, user_intent: 0.5 },
        { next_agent: this.pick(self), urgency: 0.3 },
      ],
    };
    return {
      text: `${self} says something about topic${this.seed % 50}.`,
      toolCalls: [{ name: 'handoff_directive', arguments: JSON.stringify(d) }],
      usage: { promptTokens: 900, completionTokens: 60 },
      finishReason: 'tool_calls',
      model: 'instant',
    };
  }
}

export function open(loaded: LoadedTeam): MachineDefinition {
  const def = compileTeam(loaded);
  def.limits = { ...def.limits, max_turns: 1_000_000, ping_pong: 1_000, max_reworks_per_pair: 1_000 };
  const team = def.team!;
  def.team = { ...team, arbiter: { ...team.arbiter, blockingDependency: null } };
  return def;
}

/** The layers of a session: rolling memory, the journal on disk (`format7`: its step lines hold their events, as journal format 7 wrote them). */
type Layers = { memory: boolean; store: boolean; format7?: boolean };

// The main thread's CPU (ms; the process's where it cannot be told apart).
const mainCpu = mainThreadCpu();

/**
 * Per transition from turn FROM_TURN to TURNS of a session on an instant model, with the given layers of
 * the CLI path: wall time, and the process's CPU time (which a busy machine inflates less) and its main
 * thread's (the rest is V8's helper threads: the collector, the optimising compiler).
 */
export async function sessionPerTransition(
  loaded: LoadedTeam,
  def: MachineDefinition,
  layers: Layers,
  measure: (on: boolean) => void = () => {},
): Promise<{ wall: number; cpu: number; main: number; summaries: number; transitions: number }> {
  const dir = layers.store ? mkdtempSync(join(tmpdir(), 'troupe-bench-')) : null;
  const model = new InstantModel(def.agents.map((a) => a.id));
  const session = await openSession({
    team: { loaded, def, modelFor: () => 'instant' },
    model,
    id: 'bench',
    env: {},
    memory: layers.memory,
    ...(dir ? { store: new LowdbStore(dir, layers.format7 ? { stepEvents: 'stored' } : {}) } : {}),
  });
  let transitions = 0;
  let t0 = 0;
  let c0 = process.cpuUsage();
  let m0 = 0;
  let s0 = 0;
  const took = { wall: 0, cpu: 0, main: 0, summaries: 0, transitions: 0 };
  session.subscribe((e) => {
    if (e.type === 'transition') transitions++;
    if (e.type !== 'agent_message') return;
    if (e.turn === FROM_TURN) {
      [t0, c0, m0, transitions, s0] = [performance.now(), process.cpuUsage(), mainCpu(), 0, model.summaries];
      measure(true);
    }
    if (e.turn >= TURNS) {
      measure(false);
      const cpu = process.cpuUsage(c0);
      took.main = (mainCpu() - m0) / transitions;
      took.transitions = transitions;
      took.wall = (performance.now() - t0) / transitions;
      took.cpu = (cpu.user + cpu.system) / 1000 / transitions;
      took.summaries = (model.summaries - s0) / transitions;
      session.send({ type: 'user_quit' });
    }
  });
  session.start('bench brief');
  await session.settled();
  await session.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  return took;
}

/** A data directory holding session `bench`, a store-only session run to `turns` (its step lines as `stepEvents` says). */
async function storedSession(loaded: LoadedTeam, def: MachineDefinition, turns: number, stepEvents: 'replayed' | 'stored' = 'replayed'): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-'));
  const session = await openSession({
    team: { loaded, def, modelFor: () => 'instant' },
    model: new InstantModel(def.agents.map((a) => a.id)),
    id: 'bench',
    env: {},
    memory: false,
    store: new LowdbStore(dir, { stepEvents, machineOf: () => def }),
  });
  session.subscribe((e) => {
    if (e.type === 'agent_message' && e.turn >= turns) session.send({ type: 'user_quit' });
  });
  session.start('bench brief');
  await session.settled();
  await session.stop();
  return dir;
}

/** The journal records of turns FROM_TURN to TURNS of a store-only session (what the store layer writes), read back whole. */
async function journalOfSession(loaded: LoadedTeam, def: MachineDefinition): Promise<JournalRecord[]> {
  const dir = await storedSession(loaded, def, TURNS);
  const { records } = await new LowdbStore(dir, { machineOf: () => def }).read('bench');
  rmSync(dir, { recursive: true, force: true });
  const first = records.findIndex((r) => r.events.some((e) => e.type === 'agent_message' && (e as { turn?: number }).turn === FROM_TURN));
  return records.slice(first + 1);
}

const READ_TURNS = 2_000;

/**
 * store.read of a READ_TURNS-turn session whose step lines hold their events (format 7) and of the same run written
 * in format 8 (a reader replays step() for them), interleaved: CPU ms per read (median), and the journals' bytes.
 */
async function readCost(loaded: LoadedTeam, def: MachineDefinition): Promise<{ cpu: Record<LineFormat, number>; bytes: Record<LineFormat, number> }> {
  const dirs = { 7: await storedSession(loaded, def, READ_TURNS, 'stored'), 8: await storedSession(loaded, def, READ_TURNS, 'replayed') };
  const cpu: Record<string, number[]> = {};
  const tasks = Object.fromEntries(
    ([7, 8] as const).map((f) => [
      `format ${f}`,
      async () => {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const read = await new LowdbStore(dirs[f], { machineOf: () => def }).read('bench');
        const used = process.cpuUsage(c0);
        if (read.replayGap) throw new Error(read.replayGap);
        (cpu[`format ${f}`] ??= []).push((used.user + used.system) / 1000);
        return performance.now() - t0;
      },
    ]),
  );
  await interleaved(QUICK ? 3 : 7, 2, tasks);
  const bytes = { 7: statSync(join(dirs[7], 'sessions', 'bench.jsonl')).size, 8: statSync(join(dirs[8], 'sessions', 'bench.jsonl')).size };
  for (const d of Object.values(dirs)) rmSync(d, { recursive: true, force: true });
  return { cpu: { 7: median(cpu['format 7']!.slice(-(QUICK ? 3 : 7))), 8: median(cpu['format 8']!.slice(-(QUICK ? 3 : 7))) }, bytes };
}

/** How a line holds a step's derived events: journal format 8 leaves them out (stamped with the engine's semantics), format 7 stores them. */
type LineFormat = 7 | 8;
const semanticsOf = (format: LineFormat) => (format === 8 ? ENGINE_SEMANTICS : undefined);

/** Bytes of the records' JSON (slimmed as a journal line of `format` holds them). */
function bytesOf(records: readonly JournalRecord[], format: LineFormat): number {
  return records.reduce((n, r, i) => n + JSON.stringify(slimRecord({ ...r, n: i + 1 }, 'bench', semanticsOf(format))).length, 0);
}

/**
 * The store layer's floor: CPU per transition of the same journal lines slimmed (as `format` holds them), stringified,
 * screened, sealed and written (one write per line, as the session does) in a loop, without a session.
 */
function storeFloor(records: readonly JournalRecord[], format: LineFormat): number {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-floor-'));
  const redact = redactorFrom();
  const writer = new JournalWriter(join(dir, 'floor.jsonl'));
  const turns = records.filter((r) => r.input?.type === 'agent_completed').length;
  const c0 = process.cpuUsage();
  let n = 0;
  for (const record of records) {
    writer.appendJson(redactedJson(slimRecord({ ...record, n: ++n }, 'bench', semanticsOf(format)), redact), n);
  }
  const used = process.cpuUsage(c0);
  writer.close();
  rmSync(dir, { recursive: true, force: true });
  return (used.user + used.system) / 1000 / turns;
}

// Rounds of every team's floor before any is timed. The floor's loop is optimised anew (its calls see other
// records than a session's): timed from its third run, the team measured first paid that warm-up (8 personas,
// per run: 36.9, 21.5, 21.0, 19.5, 27.2, 17.2, 14.9 µs, then 13.6-14.4), so its floor read 28.5 or 37.4 µs in
// one run and 14.0 in the next, twice the 200-persona floor measured after it, whose lines are longer.
const FLOOR_WARMUP = QUICK ? 3 : 12;

/** Every journal's floor (see storeFloor) as format 8 writes its lines and as format 7 did, interleaved after FLOOR_WARMUP rounds: medians. */
async function storeFloors(journals: readonly JournalRecord[][]): Promise<{ floor: number; format7: number }[]> {
  const tasks: Record<string, () => number> = {};
  journals.forEach((records, t) => {
    tasks[`floor ${t}`] = () => storeFloor(records, 8);
    tasks[`format7 ${t}`] = () => storeFloor(records, 7);
  });
  const cpu = await interleaved(SESSION_RUNS, FLOOR_WARMUP, tasks);
  return journals.map((_, t) => ({ floor: median(cpu[`floor ${t}`]!), format7: median(cpu[`format7 ${t}`]!) }));
}

/** The store floor by stage, µs CPU per transition: each stage run over every line in turn, median of `runs`. */
function storeFloorStages(records: readonly JournalRecord[], runs: number): Record<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-floor-'));
  const redact = redactorFrom();
  const turns = records.filter((r) => r.input?.type === 'agent_completed').length;
  const slims = records.map((r, i) => slimRecord({ ...r, n: i + 1 }, 'bench', ENGINE_SEMANTICS));
  const jsons = slims.map((x) => JSON.stringify(x));
  const scratch = Buffer.allocUnsafe(1 << 20);
  let files = 0;
  const stages: Record<string, () => void> = {
    'slim (format 8: derived events left out)': () => {
      for (let i = 0; i < records.length; i++) slimRecord({ ...records[i]!, n: i + 1 }, 'bench', ENGINE_SEMANTICS);
    },
    serialise: () => {
      for (const x of slims) JSON.stringify(x);
    },
    'redaction screen': () => {
      for (const j of jsons) redact.screen?.test(j);
    },
    'seal (UTF-8 + SHA-256)': () => {
      let prev = CHAIN_START;
      for (const j of jsons) prev = sealLineInto(j, prev, scratch, 0).hash;
    },
    // Sealing again, as the writer does: the rest of this stage is the write itself.
    'seal and write': () => {
      const writer = new JournalWriter(join(dir, `floor-${files++}.jsonl`));
      for (let i = 0; i < jsons.length; i++) writer.appendJson(jsons[i]!, i + 1);
      writer.close();
    },
  };
  const samples: Record<string, number[]> = {};
  for (let r = 0; r < runs + 2; r++) {
    for (const [name, run] of Object.entries(stages)) {
      const c0 = process.cpuUsage();
      run();
      const used = process.cpuUsage(c0);
      if (r >= 2) (samples[name] ??= []).push((used.user + used.system) / 1000 / turns);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
}

/**
 * CPU per transition spent inside the store session's journal appends (the floor's own work, done in a running
 * session) and inside its checkpoint calls (their synchronous part), median over `runs` store-only sessions
 * measured from turn FROM_TURN: each call is timed with process.cpuUsage (about a microsecond of its own per
 * call). The store layer's CPU beyond these is outside them (checkpoint writes off the loop, GC, the rest).
 */
async function storeCallsInSession(loaded: LoadedTeam, def: MachineDefinition, runs: number): Promise<{ appends: number; checkpoints: number }> {
  const proto = LowdbStore.prototype as unknown as { handle: (...args: unknown[]) => SessionHandle };
  const original = proto.handle;
  const spent = { appends: 0, checkpoints: 0, on: false };
  const timed =
    <A extends unknown[], R>(f: (...args: A) => R, key: 'appends' | 'checkpoints') =>
    (...args: A): R => {
      if (!spent.on) return f(...args);
      const c0 = process.cpuUsage();
      try {
        return f(...args);
      } finally {
        const used = process.cpuUsage(c0);
        spent[key] += used.user + used.system;
      }
    };
  proto.handle = function (this: unknown, ...args: unknown[]) {
    const handle = original.apply(this, args);
    const append = handle.append.bind(handle);
    const checkpoint = handle.checkpoint.bind(handle);
    handle.append = timed(append, 'appends');
    handle.checkpoint = timed(checkpoint, 'checkpoints');
    return handle;
  };
  const appends: number[] = [];
  const checkpoints: number[] = [];
  try {
    for (let i = 0; i < runs + 2; i++) {
      spent.appends = spent.checkpoints = 0;
      const took = await sessionPerTransition(loaded, def, { memory: false, store: true }, (on) => {
        spent.on = on;
      });
      if (i < 2) continue;
      appends.push(spent.appends / 1000 / took.transitions);
      checkpoints.push(spent.checkpoints / 1000 / took.transitions);
    }
  } finally {
    proto.handle = original;
  }
  return { appends: median(appends), checkpoints: median(checkpoints) };
}

/**
 * Bytes allocated per transition by a session with `layers` (V8's sampling heap profiler, one sample per 4 KiB on
 * average, from turn FROM_TURN; median of `runs` sessions, each sampled alone) and the largest allocation sites of the last.
 */
async function allocationPerTransition(loaded: LoadedTeam, def: MachineDefinition, layers: Layers, runs: number): Promise<{ bytes: number; sites: { site: string; bytes: number }[] }> {
  const totals: number[] = [];
  let sites: { site: string; bytes: number }[] = [];
  for (let i = 0; i < runs; i++) {
    let stop: Promise<() => Promise<HeapProfileNode>> | null = null;
    let head: Promise<HeapProfileNode> | null = null;
    const took = await sessionPerTransition(loaded, def, layers, (on) => {
      if (on) stop = sampleAllocations(4096);
      else head = stop!.then((s) => s());
    });
    const all = allocationSites(await head!);
    totals.push(all.reduce((n, s) => n + s.bytes, 0) / took.transitions);
    sites = all.map((s) => ({ site: s.site, bytes: s.bytes / took.transitions }));
  }
  return { bytes: median(totals), sites };
}

/**
 * The pure step() per transition, timed over the last turns before `turns` (so a long session is measured
 * where it is long): wall time, and the process's CPU time (which a busy machine inflates less).
 */
function stepPerTransition(def: MachineDefinition, turns: number, cpu: number[]): number {
  const ids = def.agents.map((a) => a.id);
  const window = Math.min(200, turns);
  let s: SessionState = step(def, initialState(def, { id: 'b' }), { type: 'start', brief: 'b' }).session;
  let t0 = 0;
  let c0 = process.cpuUsage();
  for (let i = 0; i < turns; i++) {
    if (i === turns - window) [t0, c0] = [performance.now(), process.cpuUsage()];
    const self = s.inFlight!.persona;
    const next = ids[(ids.indexOf(self) + 1 + (i % 3)) % ids.length]!;
    const directive = { transition: 'APPROVE_AND_HANDOFF' as const, next_agent: next, urgency: 0.5, dependency: 0.6, user_intent: 0.4, alternatives: [{ next_agent: ids[(i * 7) % ids.length]! }] };
    s = step(def, s, { type: 'agent_completed', turnId: s.inFlight!.turnId, text: `turn ${i} on topic${i % 40}`, directive: { ok: true, source: 'tool', directive } }).session;
  }
  const used = process.cpuUsage(c0);
  cpu.push((used.user + used.system) / 1000 / window);
  return (performance.now() - t0) / window;
}

export default async function engine(): Promise<void> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const teams: [string, LoadedTeam][] = [
    ['8 personas', loadTeamOrThrow(root)],
    ['200 personas', generatedTeam(200)],
  ];
  const defs = teams.map(([, loaded]) => open(loaded));
  const lengths = [20, 200, 2000];

  // Every cell is warmed up (JIT, caches) before any is timed, then the cells are timed in turn, round after round.
  const cells: Record<string, () => number> = {};
  const cpus: Record<string, number[]> = {};
  teams.forEach(([name], t) => lengths.forEach((n) => (cells[`${name} ${n}`] = () => stepPerTransition(defs[t]!, n, (cpus[`${name} ${n}`] ??= [])))));
  const steps = await interleaved(STEP_RUNS, 2, cells);
  // The CPU samples include the warm-up rounds' too; medians of the timed rounds only.
  const cpuOf = (cell: string) => median(cpus[cell]!.slice(-STEP_RUNS));
  process.stdout.write(`step() per transition, pure engine (median of ${STEP_RUNS} runs after 2 warm-up rounds; wall, CPU in brackets):\n`);
  for (const [name] of teams) {
    const row = lengths.map((n) => `${n} turns ${ms(median(steps[`${name} ${n}`]!)).padStart(8)} (${ms(cpuOf(`${name} ${n}`))})`).join(' · ');
    const flat = ratio(cpuOf(`${name} 2000`), cpuOf(`${name} 20`));
    process.stdout.write(`  ${name.padEnd(13)} ${row}   2,000/20 turns ${flat} CPU${name.startsWith('200') ? '   (target <= 30 µs at 200 personas and 2,000 turns)' : ''}\n`);
  }

  process.stdout.write(
    `\nper transition of a session on an instant model, turns ${FROM_TURN}-${TURNS} (median of ${SESSION_RUNS} interleaved runs after ${SESSION_WARMUP} warm-up rounds; CPU${threadCpuKnown() ? ' = main thread + helpers (V8: collector, compiler)' : ', the process'}):\n`,
  );
  const variants: Record<string, Layers> = {
    bare: { memory: false, store: false },
    memory: { memory: true, store: false },
    store: { memory: false, store: true },
    cli: { memory: true, store: true },
    // The same, the journal's step lines holding their events as format 7 wrote them (before and after, side by side).
    'store (format 7)': { memory: false, store: true, format7: true },
    'cli (format 7)': { memory: true, store: true, format7: true },
  };
  // The floors of every team's journal, measured together (see FLOOR_WARMUP), printed with each team's sessions.
  const journals: JournalRecord[][] = [];
  for (const [t, [, loaded]] of teams.entries()) journals.push(await journalOfSession(loaded, defs[t]!));
  const floors = await storeFloors(journals);
  for (const [t, [name, loaded]] of teams.entries()) {
    const cpu: Record<string, number[]> = {};
    const main: Record<string, number[]> = {};
    const summaries: Record<string, number[]> = {};
    const tasks = Object.fromEntries(
      Object.entries(variants).map(([v, layers]) => [
        v,
        async () => {
          const took = await sessionPerTransition(loaded, defs[t]!, layers);
          (cpu[v] ??= []).push(took.cpu);
          (main[v] ??= []).push(took.main);
          (summaries[v] ??= []).push(took.summaries);
          return took.wall;
        },
      ]),
    );
    const s = await interleaved(SESSION_RUNS, SESSION_WARMUP, tasks);
    const bare = median(s.bare!);
    const cli = median(s.cli!);
    // The CPU samples include the warm-up rounds' too; medians of the timed rounds only.
    const cpuOf = (v: string) => median(cpu[v]!.slice(-SESSION_RUNS));
    const mainOf = (v: string) => median(main[v]!.slice(-SESSION_RUNS));
    // Each session's helpers' CPU is its total less its main thread's, the median of those.
    const helpersOf = (v: string) => median(cpu[v]!.slice(-SESSION_RUNS).map((c, i) => c - main[v]!.slice(-SESSION_RUNS)[i]!));
    const signed = (x: number) => `${x < 0 ? '-' : '+'}${ms(Math.abs(x))}`;
    const split = (v: string) => (threadCpuKnown() ? `: main ${signed(mainOf(v) - mainOf('bare'))}, helpers ${signed(helpersOf(v) - helpersOf('bare'))}` : '');
    // Absolute CPU each layer adds, beside the ratios (work both paths share makes every ratio larger as it gets faster).
    const part = (v: string) => `${v} ${ms(median(s[v]!))} (${ratio(median(s[v]!), bare)}; CPU ${ratio(cpuOf(v), cpuOf('bare'))}, +${ms(cpuOf(v) - cpuOf('bare'))} CPU${split(v)})`;
    const summaryCalls = median(summaries.memory!.slice(-SESSION_RUNS));
    process.stdout.write(
      `  ${name}: user path ÷ bare = ${ratio(cpuOf('cli'), cpuOf('bare'))} CPU${threadCpuKnown() ? ` (main thread ${ratio(mainOf('cli'), mainOf('bare'))}: ${ms(mainOf('cli'))} vs ${ms(mainOf('bare'))}; helpers ${ms(helpersOf('cli'))} vs ${ms(helpersOf('bare'))})` : ''}, ${ratio(cli, bare)} wall: the CLI path (memory, journal on disk) ${ms(cli)} (CPU ${ms(cpuOf('cli'))}) vs the bare session (full-history prompt, parse, events, meter) ${ms(bare)} (CPU ${ms(cpuOf('bare'))})   (target <= 1.3x)\n`,
    );
    process.stdout.write(`    layers: ${['memory', 'store'].map(part).join(' · ')}; both +${ms(cpuOf('cli') - cpuOf('bare'))} CPU (target <= +${ms(0.3 * cpuOf('bare'))})\n`);
    process.stdout.write(
      `    journal format 7 (a step line holds its events), same run: user path ÷ bare = ${ratio(cpuOf('cli (format 7)'), cpuOf('bare'))} CPU; ${part('store (format 7)')}; format 8's store layer ${signed(cpuOf('store') - cpuOf('store (format 7)'))} CPU per transition\n`,
    );
    const records = journals[t]!;
    const { floor, format7 } = floors[t]!;
    const storeCpu = cpuOf('store') - cpuOf('bare');
    const stepLines = records.filter((r) => r.input).length;
    process.stdout.write(
      `    store floor (journal format 8: its ${(records.length / records.filter((r) => r.input?.type === 'agent_completed').length).toFixed(1)} lines per transition slimmed — a step line holds its input, the facts before it and the calls it starts, not the ${(records.filter((r) => r.input).reduce((n, r) => n + r.events.length, 0) / stepLines).toFixed(1)} events it published — stringified, screened, sealed, one write per line, no session; ${Math.round(bytesOf(records, 8) / records.length)} bytes a line): ${ms(floor)} CPU; the store layer is +${ms(storeCpu)} = ${ratio(storeCpu, floor)} its floor\n`,
    );
    process.stdout.write(
      `      the same lines as format 7 wrote them (every event stored; ${Math.round(bytesOf(records, 7) / records.length)} bytes a line, format 8 ${(bytesOf(records, 8) / bytesOf(records, 7)).toFixed(2)} of them): floor ${ms(format7)} CPU, format 8 ${signed(floor - format7)} per transition (a reader replays step() for the events instead)\n`,
    );
    const stages = storeFloorStages(records, SESSION_RUNS);
    process.stdout.write(
      `      floor by stage: ${Object.entries(stages)
        .map(([k, v]) => `${k} ${ms(v)}`)
        .join(' · ')}\n`,
    );
    const inSession = await storeCallsInSession(loaded, defs[t]!, SESSION_RUNS);
    process.stdout.write(
      `      in a running session (CPU timed per call): the same appends ${ms(inSession.appends)} (${ratio(inSession.appends, floor)} the floor), checkpoint calls ${ms(inSession.checkpoints)}; outside them +${ms(Math.max(0, storeCpu - inSession.appends - inSession.checkpoints))} (checkpoint writes off the loop, GC, the rest)\n`,
    );
    // Where the layers' time goes: one instrumented CLI-path session and one bare one (for the prompt the bare path builds instead).
    const cliParts = await layerBreakdown(async (measure) => (await sessionPerTransition(loaded, defs[t]!, variants.cli!, measure)).transitions);
    const bareParts = await layerBreakdown(async (measure) => (await sessionPerTransition(loaded, defs[t]!, variants.bare!, measure)).transitions);
    const lines = (parts: Map<string, number> | undefined) => [...(parts ?? [])].map(([label, us]) => `${label} ${ms(us / 1000)}`).join(' · ');
    process.stdout.write(`    breakdown (synchronous time in each entry point, one instrumented session; wall µs per transition):\n`);
    process.stdout.write(`      memory: ${lines(cliParts.get('memory'))}\n        (the bare path's instead: ${lines(bareParts.get('bare'))})\n`);
    process.stdout.write(`      store: ${lines(cliParts.get('store'))}\n`);
    process.stdout.write(`      both: ${lines(cliParts.get('gc'))} (the bare path's: ${lines(bareParts.get('gc'))})\n`);
    // One session at a time: the sampler sees the whole process.
    const allocation: Record<string, Awaited<ReturnType<typeof allocationPerTransition>>> = {};
    for (const [v, layers] of Object.entries(variants)) allocation[v] = await allocationPerTransition(loaded, defs[t]!, layers, QUICK ? 1 : 3);
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    process.stdout.write(
      `    allocation per transition (sampled, median of ${QUICK ? 1 : 3} sessions): ${Object.entries(allocation)
        .map(([v, a]) => `${v} ${kb(a.bytes)}`)
        .join(' · ')}\n      the CLI path's largest sites: ${allocation
        .cli!.sites.slice(0, 8)
        .map((s) => `${kb(s.bytes)} ${s.site.replace(/ src\//g, ' ')}`)
        .join(' · ')}\n`,
    );
    const read = await readCost(loaded, defs[t]!);
    process.stdout.write(
      `    store.read of a ${READ_TURNS.toLocaleString('en')}-turn session (CPU, median of ${QUICK ? 3 : 7} interleaved reads): format 7 ${read.cpu[7].toFixed(0)} ms, format 8 ${read.cpu[8].toFixed(0)} ms (${ratio(read.cpu[8], read.cpu[7])}: step() replayed for every line); journal ${(read.bytes[7] / 1e6).toFixed(2)} MB vs ${(read.bytes[8] / 1e6).toFixed(2)} MB\n`,
    );
    process.stdout.write(
      `    model calls per transition: bare and store 1 persona call; memory and the CLI path 1 + ${summaryCalls.toFixed(2)} summary calls (the rolling memory's own work, counted in its layer)\n`,
    );
  }
}

/** A stretch of time in which the server's event loop did not turn: when it began (monotonic ms), how long, the CPU the server used in it. */
export interface LoopGap {
  at: number;
  wall: number;
  cpu: number;
}

/** Where the slow probes of a phase lost their time. */
export interface Blame {
  slow: number;
  /** A gap of the server's loop overlapped the probe and the server was on the CPU for most of it: the server's own work. */
  serverBusy: number;
  /** A gap overlapped it but the server was mostly off the CPU: the machine ran other processes. */
  serverWaiting: number;
  /** No gap of the server's loop overlapped it: the time was lost in the probe's process or the network stack. */
  elsewhere: number;
}

/**
 * Sorts the probes that took more than `slowMs` by where their time went, from the server's loop gaps
 * (probes are `[sent at, took]` on the same monotonic clock as the gaps).
 */
export function blameSlowProbes(probes: readonly (readonly [number, number])[], gaps: readonly LoopGap[], slowMs: number): Blame {
  const blame: Blame = { slow: 0, serverBusy: 0, serverWaiting: 0, elsewhere: 0 };
  for (const [at, took] of probes) {
    if (took <= slowMs) continue;
    blame.slow += 1;
    const over = gaps.filter((g) => g.at < at + took && g.at + g.wall > at);
    const wall = over.reduce((n, g) => n + g.wall, 0);
    const cpu = over.reduce((n, g) => n + g.cpu, 0);
    if (over.length === 0) blame.elsewhere += 1;
    else if (cpu >= wall / 2) blame.serverBusy += 1;
    else blame.serverWaiting += 1;
  }
  return blame;
}

/** The blame as one line. */
export function blameLine(b: Blame, slowMs: number): string {
  if (b.slow === 0) return `no probe over ${slowMs} ms`;
  return `${b.slow} probes over ${slowMs} ms: ${b.serverBusy} while the server was busy, ${b.serverWaiting} while it was off the CPU (other processes ran), ${b.elsewhere} with the server's loop turning (lost in the probe's process or the network)`;
}

/** The parts of a V8 CPU profile (`Profiler.stop`) a timeline reads: times in microseconds on the monotonic clock. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** One task the event loop ran (or idled, or collected garbage): what it was, when it began (monotonic ms), how long, the functions it spent most of it in. */
export interface LoopTask {
  task: string;
  at: number;
  ms: number;
  /** The functions with most samples in it, with their milliseconds. */
  top: [string, number][];
}

/** A frame's name as a timeline shows it: the function and the file it is in. */
function frameName(frame: { functionName: string; url: string; lineNumber: number }): string {
  const file = frame.url.split('/').at(-1) ?? '';
  return `${frame.functionName || '(anonymous)'}${file ? ` ${file}:${frame.lineNumber + 1}` : ''}`;
}

/**
 * What the event loop did between `from` and `to` (monotonic ms), read from a CPU profile: consecutive
 * samples under the same top-level frame (the task the loop entered: a timer, an immediate, a socket read,
 * the next-tick queue, the garbage collector, idle) are one task.
 */
export function loopTimeline(profile: CpuProfile, from: number, to: number): LoopTask[] {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const rootId = profile.nodes[0]!.id;
  const taskOf = new Map<number, number>();
  const taskNode = (id: number): number => {
    let t = taskOf.get(id);
    if (t !== undefined) return t;
    t = id;
    while (parent.has(t) && parent.get(t) !== rootId) t = parent.get(t)!;
    taskOf.set(id, t);
    return t;
  };
  const tasks: LoopTask[] = [];
  type Open = { task: number; at: number; end: number; self: Map<string, number> };
  let open = null as Open | null;
  const close = () => {
    if (!open) return;
    const top = [...open.self.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([name, ms]) => [name, ms] as [string, number]);
    tasks.push({ task: frameName(byId.get(open.task)!.callFrame), at: open.at, ms: open.end - open.at, top });
    open = null;
  };
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    const next = i + 1 < profile.samples.length ? t + profile.timeDeltas[i + 1]! : t;
    const at = t / 1000;
    if (at < from) continue;
    if (at > to) break;
    // A sample stands for the time until the next one.
    const ms = (next - t) / 1000;
    const id = profile.samples[i]!;
    const task = taskNode(id);
    if (open?.task !== task) close();
    const current: Open = open?.task === task ? open : { task, at, end: at, self: new Map() };
    open = current;
    current.end = at + ms;
    const name = frameName(byId.get(id)!.callFrame);
    current.self.set(name, (current.self.get(name) ?? 0) + ms);
  }
  close();
  return tasks;
}

/** Each probe slower than `slowMs` with what the server's loop did while it waited (from `lead` ms before it was sent), as lines. */
export function slowProbeTimelines(profile: CpuProfile, probes: readonly (readonly [number, number])[], slowMs: number, origin: number, lead = 2): string[] {
  const lines: string[] = [];
  for (const [at, took] of probes) {
    if (took <= slowMs) continue;
    lines.push(`probe at +${(at - origin).toFixed(0)} ms took ${took.toFixed(1)} ms:`);
    for (const task of loopTimeline(profile, at - lead, at + took)) {
      if (task.ms < 0.5 && task.task !== '(garbage collector)') continue;
      const top = task.task === '(idle)' || task.task === '(garbage collector)' ? '' : `  [${task.top.map(([n, ms]) => `${n} ${ms.toFixed(1)}`).join(', ')}]`;
      lines.push(`  ${(task.at - at >= 0 ? '+' : '') + (task.at - at).toFixed(1)} ${task.task} ${task.ms.toFixed(1)} ms${top}`);
    }
  }
  return lines;
}

/** What kind of loop work a task is, by its top-level frame: what a slow probe is tallied under. */
export function taskKind(task: string): string {
  if (task.startsWith('(garbage collector)')) return 'GC';
  if (task.startsWith('(idle)')) return 'idle (server waiting: the time went to other processes)';
  if (task.startsWith('(program)')) return 'native (program)';
  if (task.startsWith('processImmediate') || task.startsWith('drain ')) return 'slices (setImmediate: writes, admission)';
  if (task.startsWith('processTimers')) return 'timers (delta batches, keep-alives)';
  if (task.startsWith('processTicksAndRejections')) return 'next ticks and promise jobs';
  if (task.startsWith('onconnection') || task.startsWith('parserOn')) return 'accepting and parsing requests';
  if (task.includes('node:net:341') || task.includes('node:net')) return 'socket events (reads, closes: readers leaving)';
  return 'other';
}

/** For each probe slower than `slowMs`, the kind of the task that held the loop longest while it waited, counted. */
export function blameTally(profile: CpuProfile, probes: readonly (readonly [number, number])[], slowMs: number, lead = 2): Map<string, number> {
  const tally = new Map<string, number>();
  for (const [at, took] of probes) {
    if (took <= slowMs) continue;
    const byKind = new Map<string, number>();
    for (const task of loopTimeline(profile, at - lead, at + took)) byKind.set(taskKind(task.task), (byKind.get(taskKind(task.task)) ?? 0) + task.ms);
    const worst = [...byKind.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'no samples';
    tally.set(worst, (tally.get(worst) ?? 0) + 1);
  }
  return tally;
}

/** For each of the server's own holds (a gap's CPU time) over `minMs`, the kind of the task that took most of it, with the milliseconds of those holds. */
export function holdTally(profile: CpuProfile, gaps: readonly LoopGap[], minMs: number): Map<string, { count: number; ms: number }> {
  const tally = new Map<string, { count: number; ms: number }>();
  for (const g of gaps) {
    const own = Math.min(g.wall, g.cpu);
    if (own <= minMs) continue;
    const byKind = new Map<string, number>();
    for (const task of loopTimeline(profile, g.at, g.at + g.wall)) byKind.set(taskKind(task.task), (byKind.get(taskKind(task.task)) ?? 0) + task.ms);
    const worst = [...byKind.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'no samples';
    const t = tally.get(worst) ?? { count: 0, ms: 0 };
    t.count += 1;
    t.ms += own;
    tally.set(worst, t);
  }
  return tally;
}

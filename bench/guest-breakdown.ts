// The guest's share of a sandbox job taken apart, on the calling thread: the bench's own jobs (recorded from a
// session) run whole by runJob, then each stage alone. The wasm crossing: the same argument handles and an answer
// string of the same length through a guest function that does nothing else. Inside QuickJS: a guest whose core
// also exposes a probe (added to its source text here, never in what troupe runs) that repeats, in a loop inside
// the guest, a prefix of what `run` does for one part — parse the scope (its fields parsed afresh for each part), build `this`, read this.last_response,
// run the part's code, write its result, sweep the global object — so each stage is the difference of two
// prefixes, free of the crossing. CPU per job (µs), summed over the parts each job runs.
import { performance } from 'node:perf_hooks';
import { DefaultIntrinsics, newQuickJSWASMModule, type QuickJSHandle } from 'quickjs-emscripten';
import type * as GuestContextModule from '../src/workflow/sandbox/guest-context.js';
import type * as GuestModule from '../src/workflow/sandbox/guest.js';
import type * as GuestModulesModule from '../src/workflow/sandbox/guest-modules.js';
import type * as RunJobModule from '../src/workflow/sandbox/run-job.js';
import type { Job } from '../src/workflow/sandbox/run-job.js';

/** The modules of the tree under measure (dist/ or src/). */
export interface BreakdownModules {
  guestContext: typeof GuestContextModule;
  guest: typeof GuestModule;
  guestModules: typeof GuestModulesModule;
  runJob: typeof RunJobModule;
}

/** µs of CPU per job for each stage, and how many parts a job ran on average. */
export interface Breakdown {
  whole: number;
  parts: number;
  crossing: number;
  parse: number;
  build: number;
  lastResponse: number;
  execute: number;
  finish: number;
  sweep: number;
  /** What runPart does beyond the stages (resets, the header): a whole part inside the guest minus the stages. */
  rest: number;
}

// The probe: repeats the first `upto` stages of run() for one part, n times (chained parts read the common_data
// the part before wrote, kept as it was). upto: 0 the loop alone, 1 parse, 2 +build, 3 +this.last_response, 4 +execute, 5 +finish, 6 +sweep, 7 runPart() itself.
const PROBE = `
function probe(programJson, scopeJson, n, upto) {
  var program = parse(programJson), saved = lastCommonData, savedAdded = lastAdded;
  for (var i = 0; i < n; i++) {
    if (upto === 7) { runPart(program, scopeJson, null, null, held); lastCommonData = saved; lastAdded = savedAdded; continue; }
    state.logs = []; state.dropped = 0; state.changed = create(null); state.anyChanged = false; state.messages = null; state.wanted = false; state.lists = false; state.added = null; state.base = null;
    chosen = '';
    state.maxLines = program.maxLogLines; state.maxChars = program.maxLogChars;
    if (upto >= 1) {
      var scope = parse(scopeJson);
      currentScope = held || scope;
      if (program.chained) scope.common_data = parse(lastCommonData);
      if (program.freshInput) scope.input = null;
    }
    if (upto >= 2) {
      var self = current = build(scope, currentScope, program.reach);
      if (upto === 3) self.last_response;
      if (upto >= 4) {
        var v = execute(program, self, null);
        if (upto >= 5) finish(self, v);
        if (upto >= 6) sweep();
      }
    }
    current = currentScope = null;
    lastCommonData = saved;
    lastAdded = savedAdded;
  }
}
run.probe = probe;
run.where = where;
return run;
})`;

/** The stages of the guest's work on the given jobs (each run once before, so programs and script.js are loaded). */
export async function guestBreakdown(jobs: Job[], modules: BreakdownModules, rounds: number): Promise<Breakdown> {
  const { runJob } = modules.runJob;
  const module = await newQuickJSWASMModule();
  const limits = jobs[0]!.limits;
  const core = modules.guest.GUEST_CORE;
  const tail = 'run.where = where;\nreturn run;\n})';
  if (!core.endsWith(tail)) throw new Error('bench: GUEST_CORE no longer ends as the breakdown expects; update bench/guest-breakdown.ts');
  // The real context (for runJob) and one whose core has the probe.
  const real = modules.guestContext.openGuestContext(module, limits);
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  const context = runtime.newContext({ intrinsics: { ...DefaultIntrinsics, TypedArrays: false, Proxy: false } });
  const run = context.unwrapResult(context.evalCode(`${core.slice(0, -tail.length)}${PROBE}(${JSON.stringify(modules.guestModules.GUEST_MODULES)})`, 'probe.js'));
  const probe = context.getProp(run, 'probe');
  const probed = { ...real, runtime, context, run, where: context.getProp(run, 'where'), scripts: new Set<string>(), jobs: new Set<number>(), readers: new Set<number>(), held: null, lists: null };

  // Which parts each job runs, and the scope each sees (the same text): replayed once through the probed guest.
  const ran: { program: string; scope: string; answer: number }[][] = jobs.map((job) => {
    const outcome = runJob(job, probed);
    runJob(job, real);
    const chain: { program: string; scope: string; answer: number }[] = [];
    let result = JSON.parse(outcome.result) as { next?: unknown };
    for (let at = 0; ; ) {
      chain.push({ program: job.parts[at]!.program, scope: job.scope, answer: JSON.stringify({ ...result, next: undefined }).length });
      if (!result.next) break;
      const from = at;
      at = job.parts.findIndex((p, i) => i > from && p.after === from);
      // The part that ran after `from` is the one whose state was chosen: the bench's chains have one candidate each time it matters.
      result = result.next as { next?: unknown };
      if (at === -1) break;
    }
    return chain;
  });
  const parts = ran.reduce((n, c) => n + c.length, 0) / jobs.length;
  const N = 400;
  const cpu = (f: () => void): number => {
    const c0 = process.cpuUsage();
    f();
    const c = process.cpuUsage(c0);
    return c.user + c.system;
  };
  // µs per job of the first `upto` stages, inside the guest.
  const inside = (upto: number): number =>
    cpu(() => {
      for (const chain of ran) {
        for (const part of chain) {
          const args = [context.newString(part.program), context.newString(part.scope), context.newNumber(N), context.newNumber(upto)];
          context.unwrapResult(context.callFunction(probe, context.undefined, ...args)).dispose();
          for (const a of args) a.dispose();
        }
      }
    }) /
    (N * jobs.length);
  // The crossing: run's arguments made and freed, a call into QuickJS, an answer of the same length read back.
  const echo = context.unwrapResult(context.evalCode('(function (id, p, s, src, m, n) { return n; })'));
  const answers = new Map<number, QuickJSHandle>();
  const answerOf = (length: number): QuickJSHandle => {
    let h = answers.get(length);
    if (!h) answers.set(length, (h = context.newString('x'.repeat(length + 6))));
    return h;
  };
  const crossing = (): number =>
    cpu(() => {
      for (let r = 0; r < N; r++) {
        for (const chain of ran) {
          for (const part of chain) {
            const args = [context.newNumber(1), context.null, context.newString(part.scope), context.null, context.null];
            const answer = context.callFunction(echo, context.undefined, ...args, answerOf(part.answer));
            const value = context.unwrapResult(answer);
            context.getString(value);
            value.dispose();
            for (const a of args) a.dispose();
          }
        }
      }
    }) /
    (N * jobs.length);
  const whole = (): number =>
    cpu(() => {
      for (let r = 0; r < N; r++) for (const job of jobs) runJob(job, real);
    }) /
    (N * jobs.length);
  const samples: number[][] = [];
  for (let r = 0; r < rounds; r++) {
    samples.push([whole(), crossing(), inside(0), inside(1), inside(2), inside(3), inside(4), inside(5), inside(6), inside(7)]);
  }
  const med = (i: number) => {
    const xs = samples.map((s) => s[i]!).sort((a, b) => a - b);
    return xs[Math.floor(xs.length / 2)]!;
  };
  const [w, c, loop, p1, p2, p3, p4, p5, p6, p7] = Array.from({ length: 10 }, (_, i) => med(i));
  void performance;
  for (const h of answers.values()) h.dispose();
  echo.dispose();
  probe.dispose();
  probed.where.dispose();
  run.dispose();
  context.dispose();
  runtime.dispose();
  modules.guestContext.closeGuestContext(real);
  return {
    whole: w!,
    parts,
    crossing: c!,
    parse: p1! - loop!,
    build: p2! - p1!,
    lastResponse: p3! - p2!,
    execute: p4! - p2!,
    finish: p5! - p4!,
    sweep: p6! - p5!,
    rest: p7! - p6!,
  };
}

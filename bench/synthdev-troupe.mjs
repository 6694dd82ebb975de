// troupe (from dist/, as installed) running SynthDev's own grocery_store_test workflow and roles (from
// SYNTHDEV_DIR) on the same instant scripted answers as bench/synthdev-engine.mjs, its code in the sandbox:
// `tier` (as sessions run it: the host tier, the pool for what it leaves), `pool` (every job on a shared pool of
// worker threads) or `inline` (small jobs on the calling thread, opt-in);
// `host`: the handlers as host functions (bench/synthdev-host.mjs), the floor under the sandbox.
// Sessions in memory, no rolling memory (SynthDev keeps neither). Prints one JSON line: CPU and wall per state,
// over the `measured` runs after the first `warm` (the warm-up; first: CPU per state of the process's first run;
// settled: CPU per state of the runs from `settled` on, once V8 has compiled the hot code). Run by
// bench/synthdev.bench.ts in a process of its own.
import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { mainThreadMs } from './main-thread-cpu.mjs';
import { openSession, openTeam, loadWorkflowPlan, MemoryStore } from '../dist/index.js';
import { teamDir } from '../dist/package-root.js';
import { createSandboxEvaluator, sharedSandboxPool } from '../dist/workflow/sandbox/index.js';
import { hostTierCounts } from '../dist/workflow/sandbox/tier/run.js';
import { scriptedModel } from './synthdev-script.mjs';
import { hostEvaluator } from './synthdev-host.mjs';

const dir = process.env.SYNTHDEV_DIR;
const [mode, rounds, runs, warm] = [process.argv[2] ?? 'pool', Number(process.argv[3] ?? 100), Number(process.argv[4] ?? 4), Number(process.argv[5] ?? 1)];
const measured = Number(process.argv[6] ?? runs - warm);
const settledFrom = Number(process.argv[7] ?? runs);
const config = join(dir, 'src/config');
// SYNTHDEV_WORKFLOW: a copy with a smaller max_length (see bench/synthdev-engine.mjs), rounds counted by model calls.
const workflowFile = process.env.SYNTHDEV_WORKFLOW ?? join(config, 'workflows/grocery_store_test.json');
const byCalls = process.env.SYNTHDEV_WORKFLOW !== undefined;
const plan = loadWorkflowPlan(workflowFile, { roles: join(config, 'roles'), env: {} });
// troupe's side of the scripted answers: the same completion, as a ChatResponse.
const model = scriptedModel(rounds, byCalls);
// The sandbox's and the host functions' own figures: the engine's step leaves them every evaluation that runs code.
const tierInStep = mode === 'tier';
// The team (its personas and tiers; a workflow session takes its roles' models from it) is opened once, as SynthDev's
// side loads its config and tools once: opening it in each session walked the team's files again (openSession with no
// team reads the shipped one), and V8 compiled that walk during the measured runs.
const team = openTeam(teamDir(), { maxTurns: rounds * 4 + 10 }, {});

/**
 * Waits until every thread of the shared pool is up (one job each, at once). The first evaluator warms them, and a
 * thread's start (loading QuickJS) takes about a second of CPU on that thread, which process.cpuUsage counts: in a
 * session's process it is paid once, not per state, so it must not fall in the runs measured after the warm-up.
 */
async function poolReady() {
  const pool = sharedSandboxPool();
  pool.warm();
  const scope = { common_data: {}, input: null, contexts: {}, agents: {}, last_agent_response: null, last_tool_calls: [] };
  const evaluators = Array.from({ length: pool.started }, () => createSandboxEvaluator({ pool }));
  await Promise.all(evaluators.map((e) => e.evaluate({ workflow: 'ready', state: 's', purpose: 'enter', code: { kind: 'statements', source: 'return 1;' }, scope })));
  await Promise.all(evaluators.map((e) => e.close()));
}

let cpu = 0;
let first = 0;
let wall = 0;
let states = 0;
let settledCpu = 0;
// The main thread's own CPU over the same runs (null: no /proc).
let main = 0;
let settledMain = 0;
let settledStates = 0;
let warmingCpu = 0;
let warmingStates = 0;
// BENCH_COUNTS: per state of the measured runs, the journal lines written and the evaluations that reached the
// evaluator (an effect each); a line `#run N` (written unbuffered) starts each run, for --trace-opt's lines (bench/synthdev-counts.ts).
const counting = process.env.BENCH_COUNTS === '1';
let lines = 0;
let evaluations = 0;
for (let run = 0; run < runs; run++) {
  if (counting) writeSync(1, `#run ${run + 1}\n`);
  const made =
    mode === 'host'
      ? hostEvaluator
      : createSandboxEvaluator({ pool: sharedSandboxPool(), scriptFor: (name) => (name === plan.name ? plan.script : null), inline: mode === 'inline', hostTier: mode === 'tier' });
  let asked = 0;
  const evaluator = counting ? { evaluate: (e, s) => ((asked += 1), made.evaluate(e, s)), close: () => made.close() } : made;
  const store = new MemoryStore();
  // SynthDev has no turn limit: troupe's is raised past the run.
  const session = await openSession({ team, workflow: plan, model, evaluator, tierInStep, store, memory: false, env: {}, id: `bench-${run}`, maxTurns: rounds * 4 + 10 });
  model.reset();
  let visited = 0;
  let ended = '';
  session.subscribe((e) => {
    if (e.type === 'state_entered') visited += 1;
    if (e.type === 'session_ended') ended = e.reason;
  });
  const t0 = performance.now();
  const m0 = mainThreadMs();
  const c0 = process.cpuUsage();
  session.start('I need pasta, tomatoes and bread for six.');
  await session.settled();
  const used = process.cpuUsage(c0);
  const usedMain = m0 === null ? null : mainThreadMs() - m0;
  await session.stop();
  await evaluator.close();
  if (!/complete/.test(ended)) throw new Error(`troupe's run did not complete: ${ended || 'no end'}`);
  // The first run pays for loading and compiling; the next `warm - 1` for the JIT warming up (troupe has more code to warm).
  if (run === 0) first = (used.user + used.system) / 1000;
  if (run === 0 && mode !== 'host' && !process.env.BENCH_NO_POOL_READY) await poolReady();
  // Runs 2 to settledFrom: the whole warm-up after loading (see bench/synthdev-engine.mjs).
  if (run >= 1 && run < settledFrom) {
    warmingCpu += (used.user + used.system) / 1000;
    warmingStates += visited - 1;
  }
  if (run >= settledFrom) {
    settledCpu += (used.user + used.system) / 1000;
    settledMain += usedMain ?? 0;
    settledStates += visited - 1;
  }
  if (run < warm || run >= warm + measured) continue;
  lines += store.journals.get(`bench-${run}`)?.length ?? 0;
  evaluations += asked;
  cpu += (used.user + used.system) / 1000;
  main += usedMain ?? 0;
  wall += performance.now() - t0;
  // SynthDev counts the states it executed; troupe enters `stop` too, which runs nothing.
  states += visited - 1;
}
process.stdout.write(
  `${JSON.stringify({ cpuPerState: cpu / states, wallPerState: wall / states, statesPerRun: states / measured, firstCpuPerState: first / (states / measured), settledCpuPerState: settledStates ? settledCpu / settledStates : null, warmingCpuPerState: warmingStates ? warmingCpu / warmingStates : null, mainCpuPerState: mainThreadMs() === null ? null : main / states, settledMainCpuPerState: mainThreadMs() !== null && settledStates ? settledMain / settledStates : null, tier: hostTierCounts.tier, sandbox: hostTierCounts.sandbox, ...(counting ? { linesPerState: lines / states, evaluationsPerState: evaluations / states } : {}) })}\n`,
);

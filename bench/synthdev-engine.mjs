// SynthDev's own engine (its source, from SYNTHDEV_DIR) running its own grocery_store_test workflow on an
// instant scripted model: its OpenAI client's `chat.completions.create` answers at once (after one turn of the
// event loop, as troupe's bench models do), so what is measured is the engine. Prints one JSON line: CPU and
// wall per state, over the `measured` runs after the first `warm` (the warm-up; first: CPU per state of the process's
// first run; settled: CPU per state of the runs from `settled` on, once V8 has compiled the hot code). Run by
// bench/synthdev.bench.ts in a process of its own.
import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { mainThreadMs } from './main-thread-cpu.mjs';
import { pathToFileURL } from 'node:url';
import { instantReply } from './synthdev-script.mjs';

const dir = process.env.SYNTHDEV_DIR;
const [rounds, runs, warm] = [Number(process.argv[2] ?? 100), Number(process.argv[3] ?? 4), Number(process.argv[4] ?? 1)];
const measured = Number(process.argv[5] ?? runs - warm);
const settledFrom = Number(process.argv[6] ?? runs);
const from = (path) => import(pathToFileURL(join(dir, path)).href);

Object.assign(process.env, { SYNTHDEV_API_KEY: 'sk-bench-not-a-key', SYNTHDEV_BASE_URL: 'http://127.0.0.1:9/v1', SYNTHDEV_BASE_MODEL: 'bench', SYNTHDEV_VERBOSITY_LEVEL: '0' });
const { Completions } = await from('node_modules/openai/resources/chat/completions/completions.mjs');
// SYNTHDEV_WORKFLOW: a copy of grocery_store_test with a smaller max_length (bench/synthdev.bench.ts), whose
// rounds are counted by model calls (the trimmed conversation no longer counts them).
const workflowFile = process.env.SYNTHDEV_WORKFLOW ?? join(dir, 'src/config/workflows/grocery_store_test.json');
const byCalls = process.env.SYNTHDEV_WORKFLOW !== undefined;
let calls = 0;
let runCalls = 0;
Completions.prototype.create = async function create(request) {
  await new Promise((r) => setImmediate(r));
  calls += 1;
  runCalls += 1;
  return instantReply(request.messages, rounds, byCalls ? runCalls : undefined);
};
const { default: ConfigManager } = await from('src/config/managers/configManager.js');
const { default: ToolManager } = await from('src/core/managers/toolManager.js');
const { default: WorkflowStateMachine } = await from('src/workflow/WorkflowStateMachine.js');
const config = ConfigManager.getInstance();
await config.initialize();
const toolManager = new ToolManager();
await toolManager.loadTools();

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
for (let run = 0; run < runs; run++) {
  // BENCH_COUNTS: a line `#run N` (written unbuffered) starts each run, for --trace-opt's lines (bench/synthdev-counts.ts).
  if (process.env.BENCH_COUNTS === '1') writeSync(1, `#run ${run + 1}\n`);
  const machine = new WorkflowStateMachine(config, toolManager, null, { addUsage() {} });
  await machine.loadWorkflow(workflowFile);
  runCalls = 0;
  const t0 = performance.now();
  const m0 = mainThreadMs();
  const c0 = process.cpuUsage();
  const result = await machine.executeWorkflow('grocery_store_test', 'I need pasta, tomatoes and bread for six.');
  const used = process.cpuUsage(c0);
  const usedMain = m0 === null ? null : mainThreadMs() - m0;
  if (!result.success) throw new Error(`SynthDev's run failed: ${result.error}`);
  // The first run pays for loading and compiling; the next `warm - 1` for the JIT warming up (troupe has more code to warm).
  if (run === 0) first = (used.user + used.system) / 1000;
  // Runs 2 to settledFrom: the whole warm-up after loading, where V8 compiles the hot code (when it compiles a function
  // moves with how much the code runs: a window of runs alone counts it or not).
  if (run >= 1 && run < settledFrom) {
    warmingCpu += (used.user + used.system) / 1000;
    warmingStates += result.states_visited.length;
  }
  if (run >= settledFrom) {
    settledCpu += (used.user + used.system) / 1000;
    settledMain += usedMain ?? 0;
    settledStates += result.states_visited.length;
  }
  if (run < warm || run >= warm + measured) continue;
  cpu += (used.user + used.system) / 1000;
  main += usedMain ?? 0;
  wall += performance.now() - t0;
  states += result.states_visited.length;
}
process.stdout.write(
  `${JSON.stringify({ cpuPerState: cpu / states, wallPerState: wall / states, statesPerRun: states / measured, firstCpuPerState: first / (states / measured), settledCpuPerState: settledStates ? settledCpu / settledStates : null, warmingCpuPerState: warmingStates ? warmingCpu / warmingStates : null, mainCpuPerState: mainThreadMs() === null ? null : main / states, settledMainCpuPerState: mainThreadMs() !== null && settledStates ? settledMain / settledStates : null, calls })}\n`,
);

// troupe next to SynthDev's own engine, on SynthDev's own workflow: grocery_store_test with its script.js
// (pre, post and transition handlers that read and write a shared conversation context) and its roles,
// both on the same instant scripted answers (bench/synthdev-script.mjs). SynthDev runs from its source
// (SYNTHDEV_DIR: a checkout of github.com/JinxCodesAI/SynthDev with `npm ci` run in it) with its OpenAI
// client's create() answering at once; troupe runs the same files from dist/, its code in the QuickJS
// sandbox (on the pool, the default; and on the calling thread, opt-in), and over the same handlers as host
// functions (bench/synthdev-host.mjs: no sandbox, the floor under it). Each run is a process of its own;
// figures are CPU per state executed, medians of interleaved runs.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleaved, median, ms, QUICK, ratio } from './stats.js';

const ROUNDS = QUICK ? 50 : 100;
// A process runs WARM sessions before those it measures: troupe's CPU per state keeps falling over its first
// sessions as V8 compiles its hot code (measured: 1,041 -> 664 µs on the calling thread over sessions 1-7; the
// host-function floor 573 -> 177 µs), SynthDev's smaller engine warms sooner. Both sides get the same warm-up;
// the first session of a process (loading and compiling included) is printed apart.
const WARM = QUICK ? 2 : 5;
const MEASURED = QUICK ? 2 : 4;
// Those runs still pay for V8 compiling troupe's hot code (its optimizing compiler's threads count in the process's
// CPU): measured with --no-opt, troupe's runs 6-9 cost 0.23-0.25 ms a state, with it 0.36-0.46, falling to about
// 0.1 by run 20, where SynthDev's engine settles at 0.11-0.14. The same processes go on, and the runs from
// SETTLED_FROM on are printed too: what a state costs once both are compiled (a server's sessions, a long run).
const SETTLED_FROM = QUICK ? 8 : 20;
const RUNS_PER_PROCESS = SETTLED_FROM + (QUICK ? 3 : 10);
const RUNS = QUICK ? 3 : 5;
const here = fileURLToPath(new URL('.', import.meta.url));

type Figures = {
  cpuPerState: number;
  wallPerState: number;
  statesPerRun: number;
  firstCpuPerState: number;
  settledCpuPerState: number;
  /** CPU per state over runs 2 to SETTLED_FROM: the whole warm-up after loading (where V8 compiles moves with how much code runs). */
  warmingCpuPerState: number;
  /** The main thread's own CPU per state (null: no /proc), in both windows. */
  mainCpuPerState: number | null;
  settledMainCpuPerState: number | null;
  tier?: number;
  sandbox?: number;
};

/** Runs one child and reads its JSON line (`workflow`: a copy of grocery_store_test to run instead). */
function child(script: string, args: string[], dir: string, workflow?: string): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, SYNTHDEV_DIR: dir, ...(workflow ? { SYNTHDEV_WORKFLOW: workflow } : {}) };
    const proc = spawn(process.execPath, [script.startsWith('/') ? script : join(here, script), ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d));
    proc.stderr.on('data', (d: Buffer) => (err += d));
    proc.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as Figures);
      else reject(new Error(`${script} ${args.join(' ')} exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

export default async function synthdev(): Promise<void> {
  const dir = process.env.SYNTHDEV_DIR;
  if (!dir || !existsSync(join(dir, 'src/workflow/WorkflowStateMachine.js')) || !existsSync(join(dir, 'node_modules/openai'))) {
    // SynthDev removed its workflows in a9574d2 ("remove failed workflow implementation"): a checkout after it has none.
    const removed = dir !== undefined && existsSync(join(dir, 'src/core')) && !existsSync(join(dir, 'src/workflow'));
    process.stdout.write(
      removed
        ? `SynthDev side by side: skipped — ${dir} has no workflows (SynthDev removed them in a9574d2): check out the commit before it (git -C ${dir} checkout a9574d2^, or a clone of it)\n`
        : 'SynthDev side by side: skipped — set SYNTHDEV_DIR to a SynthDev checkout with its packages installed (git clone https://github.com/JinxCodesAI/SynthDev && cd SynthDev && git checkout a9574d2^ && npm ci)\n',
    );
    return;
  }
  if (BEFORE) return beforeAndAfter(dir);
  const { states, cpu, first, settled, main, settledMain, warming, jobs } = await sideBySide(dir, RUNS);
  const base = median(cpu.synthdev!);
  process.stdout.write(
    `SynthDev's grocery_store_test (its script.js and roles), ${ROUNDS} customer rounds (${states.synthdev} states a run), instant scripted answers; CPU per state, median of ${RUNS} interleaved processes, each measuring ${MEASURED} runs after ${WARM} to warm up:\n`,
  );
  process.stdout.write(`  SynthDev's own engine (its source, handlers run unsandboxed)                   ${ms(base)}\n`);
  process.stdout.write(
    `  troupe as sessions run it (host tier; the pool for what it leaves)           ${ms(median(cpu.tier!))} = ${ratio(median(cpu.tier!), base)} SynthDev (target <= 1.0x); the tier took ${jobs.tier} evaluations, the sandbox ${jobs.sandbox}\n`,
  );
  process.stdout.write(`  troupe, code in the QuickJS sandbox on the pool                              ${ms(median(cpu.pool!))} = ${ratio(median(cpu.pool!), base)} SynthDev\n`);
  process.stdout.write(`  troupe, small jobs on the calling thread (opt-in)                             ${ms(median(cpu.inline!))} = ${ratio(median(cpu.inline!), base)} SynthDev\n`);
  // The floor under the sandbox: what a state costs troupe outside its sandbox job (policy step, engine, events, effect runner, journal).
  process.stdout.write(`  troupe, the five handlers as host functions (no sandbox: the floor under it)  ${ms(median(cpu.host!))} = ${ratio(median(cpu.host!), base)} SynthDev\n`);
  const f = (name: string) => median(first[name]!);
  process.stdout.write(
    `  a process's first run (loading and compiling included): SynthDev ${ms(f('synthdev'))}; troupe pool ${ms(f('pool'))} = ${ratio(f('pool'), f('synthdev'))}, calling thread ${ms(f('inline'))} = ${ratio(f('inline'), f('synthdev'))}, host functions ${ms(f('host'))} = ${ratio(f('host'), f('synthdev'))}\n`,
  );
  process.stdout.write(settledLine(settled, ['tier', 'pool', 'inline', 'host']));
  process.stdout.write(settledLine(warming, ['tier', 'host'], `runs 2-${SETTLED_FROM} (the whole warm-up after loading)`));
  process.stdout.write(mainThreadLine(main, settledMain));
  await synthdevAtLimit(dir);
  await synthdevReading(dir);
}

// TREE=<another checkout of troupe, built>: this tree's sessions against that tree's (`before`), SynthDev beside
// them, on the three variants of the workflow; the pool, calling-thread and host-function runs are left out.
const BEFORE = process.env.TREE;

/** This tree and TREE as sessions run them (host tier), interleaved with SynthDev, on each variant: runs 6-9 and the settled runs. */
async function beforeAndAfter(dir: string): Promise<void> {
  const variants: [string, (() => { file: string; remove: () => void }) | null][] = [
    ['grocery_store_test', null],
    [`max_length ${TIGHT_MAX_LENGTH}`, () => tightCopy(dir)],
    ['post handlers reading the conversation', () => workflowCopy(dir, undefined, readingScript)],
  ];
  process.stdout.write(`This tree against ${BEFORE} (before), both as sessions run them, CPU per state, median of ${RUNS} interleaved processes:\n`);
  for (const [name, copy] of variants) {
    const made = copy?.();
    try {
      const { cpu, settled, main, warming } = await sideBySide(dir, RUNS, made?.file, ['synthdev', 'tier', 'before']);
      const line = (m: Record<string, number[]>) =>
        `SynthDev ${ms(median(m.synthdev!))}, after ${ms(median(m.tier!))} = ${ratio(median(m.tier!), median(m.synthdev!))}, before ${ms(median(m.before!))} = ${ratio(median(m.before!), median(m.synthdev!))}`;
      process.stdout.write(`  ${name}: runs ${WARM + 1}-${WARM + MEASURED} ${line(cpu)}; runs ${SETTLED_FROM + 1}-${RUNS_PER_PROCESS} ${line(settled)}\n`);
      process.stdout.write(`    runs 2-${SETTLED_FROM}: ${line(warming)}\n`);
      if (main.synthdev!.length > 0) process.stdout.write(`    main thread alone, runs ${WARM + 1}-${WARM + MEASURED}: ${line(main)}\n`);
    } finally {
      made?.remove();
    }
  }
}

/** The runs from SETTLED_FROM on (V8 done compiling; `runs`: another window, named), each of `ways` (troupe's runs: tier, pool, inline, host) against SynthDev's: one line. */
function settledLine(settled: Record<string, number[]>, ways: string[], runs = `once compiled (runs ${SETTLED_FROM + 1}-${RUNS_PER_PROCESS} of the same processes)`): string {
  const base = median(settled.synthdev!);
  const names: Record<string, string> = { tier: 'tier', pool: 'pool', inline: 'calling thread', host: 'host functions' };
  const of = (way: string) => `${names[way]} ${ms(median(settled[way]!))} = ${ratio(median(settled[way]!), base)}`;
  return `  ${runs}: SynthDev ${ms(base)}; troupe ${ways.map(of).join(', ')}\n`;
}

/**
 * The main thread's own CPU per state (Linux), tier and host functions against SynthDev, in both windows: what is
 * left of runs 6-9 without V8's compiler and collector threads (measured: about half of troupe's CPU there).
 */
function mainThreadLine(main: Record<string, number[]>, settledMain: Record<string, number[]>): string {
  if (main.synthdev!.length === 0) return '';
  const of = (m: Record<string, number[]>, way: string) => `${ms(median(m[way]!))} = ${ratio(median(m[way]!), median(m.synthdev!))}`;
  return `  the main thread alone (no compiler or collector threads): runs ${WARM + 1}-${WARM + MEASURED} SynthDev ${ms(median(main.synthdev!))}, troupe tier ${of(main, 'tier')}, host functions ${of(main, 'host')}; runs ${SETTLED_FROM + 1}-${RUNS_PER_PROCESS} SynthDev ${ms(median(settledMain.synthdev!))}, troupe tier ${of(settledMain, 'tier')}, host functions ${of(settledMain, 'host')}\n`;
}

/** The four runs interleaved, `runs` times: each one's states per run, CPU per state after the warm-up, and in a process's first run. */
async function sideBySide(
  dir: string,
  runs: number,
  workflow?: string,
  ways: string[] = ['synthdev', 'tier', 'pool', 'inline', 'host'],
): Promise<{
  states: Record<string, number>;
  cpu: Record<string, number[]>;
  first: Record<string, number[]>;
  settled: Record<string, number[]>;
  main: Record<string, number[]>;
  settledMain: Record<string, number[]>;
  warming: Record<string, number[]>;
  jobs: { tier: number; sandbox: number };
}> {
  const states: Record<string, number> = {};
  const cpu: Record<string, number[]> = Object.fromEntries(ways.map((w) => [w, []]));
  const first: Record<string, number[]> = Object.fromEntries(ways.map((w) => [w, []]));
  const settled: Record<string, number[]> = Object.fromEntries(ways.map((w) => [w, []]));
  const main: Record<string, number[]> = Object.fromEntries(ways.map((w) => [w, []]));
  const settledMain: Record<string, number[]> = Object.fromEntries(ways.map((w) => [w, []]));
  const warming: Record<string, number[]> = Object.fromEntries(ways.map((w) => [w, []]));
  const jobs = { tier: 0, sandbox: 0 };
  const take = (name: string) => (f: Figures) => {
    states[name] = f.statesPerRun;
    cpu[name]!.push(f.cpuPerState);
    first[name]!.push(f.firstCpuPerState);
    settled[name]!.push(f.settledCpuPerState);
    warming[name]!.push(f.warmingCpuPerState);
    if (f.mainCpuPerState !== null) main[name]!.push(f.mainCpuPerState);
    if (f.settledMainCpuPerState !== null) settledMain[name]!.push(f.settledMainCpuPerState);
    if (name === 'tier') {
      jobs.tier += f.tier ?? 0;
      jobs.sandbox += f.sandbox ?? 0;
    }
    return f.cpuPerState;
  };
  const rounds = String(ROUNDS);
  const windows = [String(RUNS_PER_PROCESS), String(WARM), String(MEASURED), String(SETTLED_FROM)];
  const all: Record<string, () => Promise<number>> = {
    synthdev: () => child('synthdev-engine.mjs', [rounds, ...windows], dir, workflow).then(take('synthdev')),
    tier: () => child('synthdev-troupe.mjs', ['tier', rounds, ...windows], dir, workflow).then(take('tier')),
    pool: () => child('synthdev-troupe.mjs', ['pool', rounds, ...windows], dir, workflow).then(take('pool')),
    inline: () => child('synthdev-troupe.mjs', ['inline', rounds, ...windows], dir, workflow).then(take('inline')),
    host: () => child('synthdev-troupe.mjs', ['host', rounds, ...windows], dir, workflow).then(take('host')),
    before: () => child(join(BEFORE ?? here, 'bench/synthdev-troupe.mjs'), ['tier', rounds, ...windows], dir, workflow).then(take('before')),
  };
  await interleaved(runs, 0, Object.fromEntries(ways.map((w) => [w, all[w]!])));
  return { states, cpu, first, settled, main, settledMain, warming, jobs };
}

// The conversation of the run above stays under its max_length (30,000 characters; it reaches about 6,000):
// the same workflow with a max_length it passes after a third of the run, so that most handlers add to a
// context at its limit. SynthDev's trimming drops messages until 10 remain once past the limit (its loop
// measures the list it does not shorten); troupe's drops the oldest until the text fits: troupe keeps more.
const TIGHT_MAX_LENGTH = 2000;

/** grocery_store_test with max_length TIGHT_MAX_LENGTH, and its script.js, in a temporary directory. */
function tightCopy(dir: string): { file: string; remove: () => void } {
  return workflowCopy(dir, TIGHT_MAX_LENGTH, (script) => script);
}

/**
 * grocery_store_test in a temporary directory, with `maxLength` (undefined: its own) and its script.js as `edit`
 * makes it. A script.js edit that no longer applies (SynthDev changed it) throws, naming the bench.
 */
function workflowCopy(dir: string, maxLength: number | undefined, edit: (script: string) => string): { file: string; remove: () => void } {
  const workflows = join(dir, 'src/config/workflows');
  const temp = mkdtempSync(join(tmpdir(), 'troupe-synthdev-'));
  const json = JSON.parse(readFileSync(join(workflows, 'grocery_store_test.json'), 'utf8')) as { contexts: { max_length?: number }[] };
  if (maxLength !== undefined) for (const c of json.contexts) c.max_length = maxLength;
  writeFileSync(join(temp, 'grocery_store_test.json'), JSON.stringify(json, null, 2));
  mkdirSync(join(temp, 'grocery_store_test'));
  const script = readFileSync(join(workflows, 'grocery_store_test/script.js'), 'utf8');
  const edited = edit(script);
  if (edited === script && maxLength === undefined) throw new Error("bench synthdev: grocery_store_test's script.js no longer has the lines this copy edits");
  writeFileSync(join(temp, 'grocery_store_test/script.js'), edited);
  return { file: join(temp, 'grocery_store_test.json'), remove: () => rmSync(temp, { recursive: true, force: true }) };
}

/**
 * grocery_store_test whose post handlers read the conversation before they add to it, as handlers that check
 * what was said last do (its own only add): the worker's reply is not added twice, the customer's decision is
 * read only once the conversation has begun. Every post handler then reads the whole context.
 */
export function readingScript(script: string): string {
  const reply = 'if (context && responseContent) {';
  const decision = 'if (decisionCall && context) {';
  if (!script.includes(reply) || !script.includes(decision)) return script;
  return script
    .replace(reply, 'if (context && responseContent && context.messages[context.messages.length - 1]?.content !== responseContent) {')
    .replace(decision, 'if (decisionCall && context && context.messages.length > 0) {');
}

/** The side by side again, with post handlers that read the conversation (readingScript). */
export async function synthdevReading(dir: string): Promise<void> {
  const reading = workflowCopy(dir, undefined, readingScript);
  try {
    const { states, cpu, settled } = await sideBySide(dir, 3, reading.file);
    const base = median(cpu.synthdev!);
    process.stdout.write(`Post handlers that read the conversation before adding to it (${states.synthdev} states a run), median of 3 interleaved processes:\n`);
    process.stdout.write(`  SynthDev's own engine                                                          ${ms(base)}\n`);
    process.stdout.write(`  troupe as sessions run it (host tier)                                         ${ms(median(cpu.tier!))} = ${ratio(median(cpu.tier!), base)} SynthDev\n`);
    process.stdout.write(`  troupe, on the pool                                                           ${ms(median(cpu.pool!))} = ${ratio(median(cpu.pool!), base)} SynthDev\n`);
    process.stdout.write(`  troupe, on the calling thread                                                 ${ms(median(cpu.inline!))} = ${ratio(median(cpu.inline!), base)} SynthDev\n`);
    process.stdout.write(settledLine(settled, ['tier', 'pool', 'inline']));
  } finally {
    reading.remove();
  }
}

/** The side by side again, with a context at its max_length for most of the run. */
export async function synthdevAtLimit(dir: string): Promise<void> {
  const tight = tightCopy(dir);
  try {
    const { states, cpu, settled } = await sideBySide(dir, 3, tight.file);
    const base = median(cpu.synthdev!);
    process.stdout.write(
      `The same with max_length ${TIGHT_MAX_LENGTH} (passed a third of the way in; ${states.synthdev} states a run for SynthDev, ${states.pool} for troupe), median of 3 interleaved processes:\n`,
    );
    process.stdout.write(`  SynthDev's own engine                                                          ${ms(base)}\n`);
    process.stdout.write(`  troupe as sessions run it (host tier)                                         ${ms(median(cpu.tier!))} = ${ratio(median(cpu.tier!), base)} SynthDev\n`);
    process.stdout.write(`  troupe, on the pool                                                           ${ms(median(cpu.pool!))} = ${ratio(median(cpu.pool!), base)} SynthDev\n`);
    process.stdout.write(`  troupe, on the calling thread                                                 ${ms(median(cpu.inline!))} = ${ratio(median(cpu.inline!), base)} SynthDev\n`);
    process.stdout.write(`  troupe, handlers as host functions                                            ${ms(median(cpu.host!))} = ${ratio(median(cpu.host!), base)} SynthDev\n`);
    process.stdout.write(settledLine(settled, ['tier', 'pool', 'inline', 'host']));
  } finally {
    tight.remove();
  }
}

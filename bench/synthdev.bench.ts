// troupe next to SynthDev's own engine, on SynthDev's own workflow: grocery_store_test with its script.js
// (pre, post and transition handlers that read and write a shared conversation context) and its roles,
// both on the same instant scripted answers (bench/synthdev-script.mjs). SynthDev runs from its source
// (SYNTHDEV_DIR: a checkout of github.com/JinxCodesAI/SynthDev with `npm ci` run in it) with its OpenAI
// client's create() answering at once; troupe runs the same files from dist/, its code in the QuickJS
// sandbox (on the pool, the default; and on the calling thread, opt-in), and over the same handlers as host
// functions (bench/synthdev-host.mjs: no sandbox, the floor under it). Each run is a process of its own;
// figures are CPU per state executed, medians of interleaved runs.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleaved, median, ms, QUICK, ratio } from './stats.js';

const ROUNDS = QUICK ? 50 : 100;
const RUNS_PER_PROCESS = 4;
const RUNS = QUICK ? 3 : 5;
const here = fileURLToPath(new URL('.', import.meta.url));

type Figures = { cpuPerState: number; wallPerState: number; statesPerRun: number };

/** Runs one child and reads its JSON line. */
function child(script: string, args: string[], dir: string): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [join(here, script), ...args], { cwd: dir, env: { ...process.env, SYNTHDEV_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
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
    process.stdout.write(
      'SynthDev side by side: skipped — set SYNTHDEV_DIR to a SynthDev checkout with its packages installed (git clone https://github.com/JinxCodesAI/SynthDev && cd SynthDev && npm ci)\n',
    );
    return;
  }
  const states: Record<string, number> = {};
  const cpu: Record<string, number[]> = { synthdev: [], pool: [], inline: [], host: [] };
  const take = (name: string) => (f: Figures) => {
    states[name] = f.statesPerRun;
    cpu[name]!.push(f.cpuPerState);
    return f.cpuPerState;
  };
  const rounds = String(ROUNDS);
  const per = String(RUNS_PER_PROCESS);
  await interleaved(RUNS, 0, {
    synthdev: () => child('synthdev-engine.mjs', [rounds, per], dir).then(take('synthdev')),
    pool: () => child('synthdev-troupe.mjs', ['pool', rounds, per], dir).then(take('pool')),
    inline: () => child('synthdev-troupe.mjs', ['inline', rounds, per], dir).then(take('inline')),
    host: () => child('synthdev-troupe.mjs', ['host', rounds, per], dir).then(take('host')),
  });
  const base = median(cpu.synthdev!);
  process.stdout.write(
    `SynthDev's grocery_store_test (its script.js and roles), ${ROUNDS} customer rounds (${states.synthdev} states a run), instant scripted answers; CPU per state, median of ${RUNS} interleaved processes of ${RUNS_PER_PROCESS - 1} runs each after a warm-up:\n`,
  );
  process.stdout.write(`  SynthDev's own engine (its source, handlers run unsandboxed)                   ${ms(base)}\n`);
  process.stdout.write(`  troupe, code in the QuickJS sandbox on the pool (the default)                ${ms(median(cpu.pool!))} = ${ratio(median(cpu.pool!), base)} SynthDev (target <= 1.0x)\n`);
  process.stdout.write(`  troupe, small jobs on the calling thread (opt-in)                             ${ms(median(cpu.inline!))} = ${ratio(median(cpu.inline!), base)} SynthDev\n`);
  // The floor under the sandbox: what a state costs troupe outside its sandbox job (policy step, engine, events, effect runner, journal).
  process.stdout.write(`  troupe, the five handlers as host functions (no sandbox: the floor under it)  ${ms(median(cpu.host!))} = ${ratio(median(cpu.host!), base)} SynthDev\n`);
}

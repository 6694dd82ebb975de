// What a state of SynthDev's grocery_store_test costs in work, not time: per state of runs 6-9 of a process (the
// window bench/synthdev.bench.ts measures), the functions V8 optimises (`--trace-opt`: compilations completed, and
// distinct functions), for SynthDev's own engine and for troupe as sessions run it (host tier); for troupe also the
// journal lines written and the evaluations that reached the evaluator (an effect and a step each). With a second
// tree (TREE=<a checkout of troupe, built, with this tree's bench/synthdev-troupe.mjs copied in>), that tree too, the
// processes interleaved. Not part of `npm run bench`: a tool for one change.
// Run: SYNTHDEV_DIR=<SynthDev checkout> [TREE=<other checkout>] node --import tsx bench/synthdev-counts.ts [processes]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.js';

const dir = process.env.SYNTHDEV_DIR ?? '';
const other = process.env.TREE;
const processes = Number(process.argv[2] ?? 3);
const here = fileURLToPath(new URL('.', import.meta.url));
const [ROUNDS, RUNS, WARM, MEASURED] = [100, 9, 5, 4];

type Counts = { compiled: number; distinct: number; lines?: number; evaluations?: number; states: number };

/** One process with --trace-opt: its completed optimisations in the measured runs, per state. */
function counted(script: string, args: string[]): Promise<Counts> {
  return new Promise((resolve, reject) => {
    // stdbuf: V8 prints its trace through C's stdout, which a pipe would buffer past the run markers.
    const proc = spawn('stdbuf', ['-oL', process.execPath, '--trace-opt', script, ...args, String(ROUNDS), String(RUNS), String(WARM), String(MEASURED)], {
      cwd: dir,
      env: { ...process.env, BENCH_COUNTS: '1', SYNTHDEV_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d));
    proc.stderr.on('data', (d: Buffer) => (err += d));
    proc.on('close', (code) => {
      const lines = out.split('\n');
      const last = JSON.parse(lines.filter((l) => l.startsWith('{')).at(-1) ?? 'null') as { statesPerRun: number; linesPerState?: number; evaluationsPerState?: number } | null;
      if (code !== 0 || !last) return reject(new Error(`${script} exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
      let run = 0;
      let compiled = 0;
      const functions = new Set<string>();
      for (const line of lines) {
        const mark = /^#run (\d+)$/.exec(line);
        if (mark) run = Number(mark[1]);
        else if (run > WARM && run <= WARM + MEASURED && line.startsWith('[completed compiling')) {
          compiled += 1;
          functions.add(/sfi = (0x[0-9a-f]+)/.exec(line)?.[1] ?? line);
        }
      }
      const states = last.statesPerRun * MEASURED;
      resolve({ compiled: compiled / states, distinct: functions.size / states, lines: last.linesPerState, evaluations: last.evaluationsPerState, states: last.statesPerRun });
    });
  });
}

const ways: Record<string, () => Promise<Counts>> = {
  synthdev: () => counted(join(here, 'synthdev-engine.mjs'), []),
  troupe: () => counted(join(here, 'synthdev-troupe.mjs'), ['tier']),
  ...(other ? { other: () => counted(join(other, 'bench/synthdev-troupe.mjs'), ['tier']) } : {}),
};
const results: Record<string, Counts[]> = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (let i = 0; i < processes; i++) for (const [name, run] of Object.entries(ways)) results[name]!.push(await run());

const f = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(3));
process.stdout.write(`Per state of runs ${WARM + 1}-${WARM + MEASURED} (${processes} interleaved processes each, medians; ${ROUNDS} customer rounds):\n`);
for (const [name, list] of Object.entries(results)) {
  const m = (key: keyof Counts) => (list.some((c) => c[key] === undefined) ? undefined : median(list.map((c) => c[key] as number)));
  process.stdout.write(
    `  ${name.padEnd(9)} optimised ${f(m('compiled'))} (distinct functions ${f(m('distinct'))}); journal lines ${f(m('lines'))}; evaluations to the evaluator ${f(m('evaluations'))}; ${list[0]!.states} states a run\n`,
  );
}

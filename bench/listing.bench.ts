// Cold `troupe sessions` over many crashed sessions: each session's process died before its next checkpoint, so
// the listing folds the journal lines after the checkpoint (its status, usage and transitions as the journal
// ends). Measured as the real CLI (dist/cli.js) in a fresh process with no listing cache (index.json removed),
// beside two peers in the same rounds (interleaved): the same number of closed sessions (checkpoint at the
// journal's end: nothing to fold, the listing before the tail fold), and the crashed ones again with the cache
// made. Two shapes of crashed session: short (killed during its first turns: 31 lines, checkpoint at line 5) and
// long (a session of many turns killed in its last one: a long journal, a short tail). CPU time is the process's
// own (user + system, told on stderr at exit), the figure to judge by on a loaded machine. BASE_CLI=<path to
// another build's dist/cli.js> adds that build's cold listing of the crashed sessions to the same rounds.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DemoModel } from '../src/llm/demo-model.js';
import { openSession } from '../src/session/open-session.js';
import { releaseLock } from '../src/store/lock.js';
import { LowdbStore } from '../src/store/lowdb-store.js';
import { writesSettled } from '../src/store/writes-in-flight.js';
import { openTeam } from '../src/team/open-team.js';
import { interleaved, median, QUICK } from './stats.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const BASE_CLI = process.env.BASE_CLI;
const SESSIONS = Number(process.env.SESSIONS ?? (QUICK ? 200 : 1000));
const ROUNDS = QUICK ? 3 : 5;
const BRIEF = 'A lighthouse keeper game';
const CPU_HOOK = `data:text/javascript,${encodeURIComponent("process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('cpu-ms ' + (u.user + u.system) / 1000 + '\\n'); });")}`;

/**
 * Runs one demo session into `dir` as `seed`: `turns` user messages after the brief with a clock that moves two
 * seconds a turn (so checkpoints come due), then one more with the clock stopped; crashed (the lock let go, no
 * close: the document keeps its last checkpoint) or closed.
 */
async function seedSession(dir: string, turns: number, crashed: boolean): Promise<void> {
  const store = new LowdbStore(dir);
  let now = Date.UTC(2026, 0, 1);
  const s = await openSession({ team: openTeam(ROOT), teamDir: ROOT, model: new DemoModel(), store, id: 'seed', brief: BRIEF, env: { TROUPE_MODEL: 'bench' }, clock: () => now, memory: false });
  s.start(BRIEF);
  await s.settled();
  for (let i = 0; i < turns; i++) {
    now += 2_000;
    s.send({ type: 'user_message', text: `make chapter ${i} harder` });
    await s.settled();
    // Its checkpoint written before the next turn (one asked for while another is written takes the state then).
    await writesSettled();
  }
  s.send({ type: 'user_message', text: 'one more thing' });
  await s.settled();
  await writesSettled();
  if (crashed) releaseLock(store.lockOf('seed'));
  else await s.stop();
}

/** A data directory holding `n` copies of one seeded session under their own ids. */
async function dataDir(turns: number, crashed: boolean, n: number): Promise<{ dir: string; lines: number; covered: number; bytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-list-'));
  await seedSession(dir, turns, crashed);
  const sessions = join(dir, 'sessions');
  // The document as its last checkpoint left it (its newest slot: the file holds the document as created, then its
  // slots), written alone: each copy loads it as a document of an earlier troupe does (no slots beside it).
  const doc = JSON.stringify(await new LowdbStore(dir).document('seed'));
  const journal = join(sessions, 'seed.jsonl');
  for (let i = 0; i < n; i++) {
    const id = `s${String(i).padStart(5, '0')}`;
    writeFileSync(join(sessions, `${id}.json`), doc.replace('"id":"seed"', `"id":"${id}"`));
    copyFileSync(journal, join(sessions, `${id}.jsonl`));
  }
  const shape = { lines: readFileSync(journal, 'utf8').split('\n').length - 1, covered: (JSON.parse(doc) as { checkpoint: { records: number } }).checkpoint.records, bytes: statSync(journal).size };
  for (const f of ['seed.json', 'seed.jsonl', 'seed.lock', 'index.json']) rmSync(join(sessions, f), { force: true });
  return { dir, ...shape };
}

/** CPU ms of one `troupe sessions` process over `dir` (its listing cache removed first when `cold`). */
function listOnce(dir: string, cold: boolean, cli = CLI): Promise<number> {
  if (cold) rmSync(join(dir, 'sessions', 'index.json'), { force: true });
  return cliCpu(dir, ['sessions'], cli);
}

/** CPU ms of one troupe process (`cli`) running `args` over the data dir `dir`. */
function cliCpu(dir: string, args: string[], cli: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', CPU_HOOK, cli, ...args], { env: { PATH: process.env.PATH ?? '', TROUPE_DATA_DIR: dir }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => {
      const m = /cpu-ms ([\d.]+)/.exec(err);
      if (code !== 0 || !m) reject(new Error(`troupe ${args.join(' ')} failed (${code}): ${err}`));
      else resolve(Number(m[1]));
    });
  });
}

export default async function run(): Promise<void> {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');
  const shapes = { short: 0, long: QUICK ? 10 : 30 };
  for (const [shape, turns] of Object.entries(shapes)) {
    const crashed = await dataDir(turns, true, SESSIONS);
    const closed = await dataDir(turns, false, SESSIONS);
    try {
      await listOnce(crashed.dir, false); // makes the cache the warm peer reads
      const tasks: Record<string, () => Promise<number>> = {
        crashedCold: () => listOnce(crashed.dir, true),
        closedCold: () => listOnce(closed.dir, true),
        crashedWarm: () => listOnce(crashed.dir, false),
      };
      if (BASE_CLI) {
        tasks.baseCold = () => listOnce(crashed.dir, true, BASE_CLI);
        tasks.baseClosedCold = () => listOnce(closed.dir, true, BASE_CLI);
      }
      const samples = await interleaved(ROUNDS, 1, tasks);
      const [a, b, c] = [median(samples.crashedCold!), median(samples.closedCold!), median(samples.crashedWarm!)];
      const base = samples.baseCold ? median(samples.baseCold) : null;
      const baseClosed = samples.baseClosedCold ? median(samples.baseClosedCold) : null;
      process.stdout.write(
        `${shape}: ${SESSIONS} sessions, journal ${crashed.lines} lines (${(crashed.bytes / 1024).toFixed(1)} KiB), checkpoint at line ${crashed.covered}: troupe sessions CPU, median of ${ROUNDS}: ` +
          `crashed cold ${a.toFixed(0)} ms, closed cold ${b.toFixed(0)} ms (${(a / b).toFixed(2)}x), crashed with cache ${c.toFixed(0)} ms` +
          `${base !== null ? `; base build crashed cold ${base.toFixed(0)} ms (${(base / b).toFixed(2)}x closed, this build ${(a / base).toFixed(2)}x of it)` : ''}` +
          `${baseClosed !== null ? `; base build closed cold ${baseClosed.toFixed(0)} ms (this build ${(b / baseClosed).toFixed(2)}x of it)` : ''}\n`,
      );
      if (BASE_CLI) {
        // `troupe show` of one session (crashed: its tail folded; closed), this build beside the base build in the same rounds.
        const show = await interleaved(ROUNDS * 2, 1, {
          crashed: () => cliCpu(crashed.dir, ['show', 's00000'], CLI),
          crashedBase: () => cliCpu(crashed.dir, ['show', 's00000'], BASE_CLI),
          closed: () => cliCpu(closed.dir, ['show', 's00000'], CLI),
          closedBase: () => cliCpu(closed.dir, ['show', 's00000'], BASE_CLI),
        });
        const m = (k: keyof typeof show) => median(show[k]);
        process.stdout.write(
          `${shape}: troupe show CPU, median of ${ROUNDS * 2}: crashed ${m('crashed').toFixed(0)} ms (base ${m('crashedBase').toFixed(0)} ms, ${(m('crashed') / m('crashedBase')).toFixed(2)}x), closed ${m('closed').toFixed(0)} ms (base ${m('closedBase').toFixed(0)} ms, ${(m('closed') / m('closedBase')).toFixed(2)}x)\n`,
        );
      }
    } finally {
      rmSync(crashed.dir, { recursive: true, force: true });
      rmSync(closed.dir, { recursive: true, force: true });
    }
  }
}

// What `troupe serve` pays in the store when many sessions are created at once, without HTTP or the engine: N sessions
// created through LowdbStore.create together (documents as openSession makes them), then closed together, each run a
// process of its own so its CPU (user and system: the kernel's file creates) is its own. CREATES_VARIANTS names other
// built trees (`before:/path/to/checkout`), run interleaved with this one. TMPDIR chooses the file system.
// Run: node --import tsx bench/serve-creates.ts   (CREATES=1000 CREATES_ROUNDS=3)
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionDocument } from '../src/store/session-file.js';
import { median } from './stats.js';

const COUNT = Number(process.env.CREATES ?? 1000);
const ROUNDS = Number(process.env.CREATES_ROUNDS ?? 3);
const VARIANTS = (process.env.CREATES_VARIANTS ?? '')
  .split(/\s+/)
  .filter(Boolean)
  .map((spec) => ({ name: spec.slice(0, spec.indexOf(':')), dir: spec.slice(spec.indexOf(':') + 1) }));

/** What one run measured: when half and all of the creates resolved (ms from the start), their CPU, and the closes'. */
interface Run {
  createdP50: number;
  createdAll: number;
  createUserMs: number;
  createSystemMs: number;
  closeMs: number;
  closeSystemMs: number;
}

/** The child: creates COUNT sessions at once in `dir` with the store of the tree at BENCH_CODE_DIR (or this one), then closes them. */
async function child(dir: string): Promise<Run> {
  const { serveModules } = await import('./code-under-test.js');
  const { LowdbStore } = await serveModules();
  const template = await templateDocument(join(dir, 'template'));
  const store = new LowdbStore(join(dir, 'data'));
  // The sessions directory made first (a server makes it with its first session, before the load).
  await (await store.create({ ...template, id: 'first' })).close();
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const done: number[] = [];
  const handles = await Promise.all(
    Array.from({ length: COUNT }, async (_, i) => {
      const handle = await store.create({ ...template, id: `s${i}` });
      done.push(performance.now() - started);
      return handle;
    }),
  );
  const created = process.cpuUsage(cpu0);
  const closing = performance.now();
  const cpu1 = process.cpuUsage();
  await Promise.all(handles.map((h) => h.close()));
  const closed = process.cpuUsage(cpu1);
  return {
    createdP50: median(done),
    createdAll: Math.max(...done),
    createUserMs: created.user / 1000 / COUNT,
    createSystemMs: created.system / 1000 / COUNT,
    closeMs: (performance.now() - closing) / COUNT,
    closeSystemMs: closed.system / 1000 / COUNT,
  };
}

/** A new session's document as openSession makes it (the shipped team, a brief), as it hands it to the store's create. */
async function templateDocument(dir: string): Promise<SessionDocument> {
  const { LowdbStore } = await import('../src/store/lowdb-store.js');
  const { openSession } = await import('../src/session/open-session.js');
  const { openTeam } = await import('../src/team/open-team.js');
  const { PACKAGE_ROOT } = await import('../src/package-root.js');
  const { LatencyModel } = await import('./serve.bench.js');
  const store = new LowdbStore(dir);
  let made: SessionDocument | null = null;
  const create = store.create.bind(store);
  store.create = (doc) => {
    made = structuredClone(doc);
    return create(doc);
  };
  const session = await openSession({ team: openTeam(PACKAGE_ROOT, {}, {}), teamDir: PACKAGE_ROOT, env: {}, model: new LatencyModel(0), store, id: 'template', brief: 'bench session' });
  await session.stop();
  return made!;
}

/** One run in a process of its own. */
function measure(root: string, codeDir: string | undefined, n: number): Promise<Run> {
  const dir = mkdtempSync(join(root, `run${n}-`));
  const proc = fork(fileURLToPath(import.meta.url), [dir], { execArgv: ['--import', 'tsx'], env: { ...process.env, CREATES_CHILD: '1', ...(codeDir ? { BENCH_CODE_DIR: codeDir } : {}) } });
  return new Promise((resolve, reject) => {
    proc.once('message', (m) => resolve(m as Run));
    proc.once('exit', (code) => code !== 0 && reject(new Error(`serve-creates child exited ${code}`)));
  });
}

async function main(): Promise<void> {
  // Removed once the bench is done, not after each run (an inode freed slows the creates after it on an ext4 without a journal).
  const root = mkdtempSync(join(tmpdir(), 'troupe-serve-creates-'));
  try {
    const trees = [{ name: 'this', dir: undefined as string | undefined }, ...VARIANTS];
    const runs = new Map<string, Run[]>(trees.map((t) => [t.name, []]));
    let n = 0;
    for (let r = 0; r < ROUNDS; r++) for (const t of trees) runs.get(t.name)!.push(await measure(root, t.dir, n++));
    process.stdout.write(`${COUNT} sessions created at once through LowdbStore.create, then closed; data dir in ${tmpdir()}; median of ${ROUNDS} interleaved runs\n`);
    for (const t of trees) {
      const of = runs.get(t.name)!;
      const m = (key: keyof Run) => median(of.map((f) => f[key]));
      process.stdout.write(
        `  ${t.name.padEnd(8)} created p50 ${m('createdP50').toFixed(0)} ms, all ${m('createdAll').toFixed(0)} ms (each round ${of.map((f) => f.createdAll.toFixed(0)).join(', ')}); CPU per create ${(m('createUserMs') + m('createSystemMs')).toFixed(3)} ms (system ${m('createSystemMs').toFixed(3)}); close ${m('closeMs').toFixed(3)} ms each (system ${m('closeSystemMs').toFixed(3)})\n`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.env.CREATES_CHILD) {
  const figures = await child(process.argv[2]!);
  process.send!(figures, () => process.exit(0));
} else if (import.meta.url === `file://${process.argv[1]}`) await main();

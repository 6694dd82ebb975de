// Resident memory as a long session runs: a headless session on the shipped team, memory on, saved to a
// lowdb store, talking over HTTP (the OpenAI adapter, streaming) to a local chat server in another process
// (bench/chat-server.ts). RSS and heap are read after a full GC at 100, 1,000, 2,000 and 5,000 turns; flat
// is the target. The heap is sized for memory, as the CLI does for headless runs. Alone: node --import tsx bench/rss.bench.ts   (MARKS=100,1000 for a shorter run)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { modelFromEnv } from '../src/llm/from-env.js';
import { openTeam } from '../src/team/open-team.js';
import { openSession } from '../src/session/open-session.js';
import { LowdbStore } from '../src/store/lowdb-store.js';
import { runAlone } from './alone.js';

const ROOT = resolve(import.meta.dirname, '..');
const MARKS = (process.env.MARKS ?? (process.env.BENCH_QUICK === '1' ? '100,1000' : '100,1000,2000,5000')).split(',').map(Number);

// A full collection before each reading, so the figure is what the session keeps, not garbage not yet collected.
setFlagsFromString('--expose-gc');
// As the CLI runs headless sessions (src/cli.tsx): the heap sized for memory.
setFlagsFromString('--optimize-for-size');
const gc = runInNewContext('gc') as () => void;

function startServer(last: number): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'chat-server.ts'), String(last)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((ok, fail) => {
    child.stdout.once('data', (d: Buffer) => ok({ url: `http://127.0.0.1:${d.toString().trim()}/v1`, stop: () => child.kill() }));
    child.once('exit', (code) => fail(new Error(`chat server exited ${code}`)));
  });
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** Measures in a process of its own (see runAlone). */
export default async function alone(): Promise<void> {
  await runAlone(fileURLToPath(import.meta.url));
}

async function bench(): Promise<void> {
  const last = MARKS.at(-1)!;
  const server = await startServer(last);
  const dir = mkdtempSync(join(tmpdir(), 'troupe-rss-'));
  try {
    const env = { OPENAI_API_KEY: 'local-bench', OPENAI_BASE_URL: server.url, TROUPE_MODEL: 'bench' };
    const team = openTeam(ROOT, { maxTurns: last + 10 }, env);
    team.def.limits = { ...team.def.limits, ping_pong: 1_000_000, max_reworks_per_pair: 1_000_000 };
    const session = await openSession({ team, teamDir: ROOT, model: modelFromEnv(env), store: new LowdbStore(dir), env, memory: true });
    const rows: string[] = [];
    const t0 = performance.now();
    session.subscribe((e) => {
      if (e.type !== 'agent_message' || !MARKS.includes(e.turn)) return;
      gc();
      const m = process.memoryUsage();
      rows.push(
        `  turn ${String(e.turn).padStart(5)}  rss ${mib(m.rss).padStart(7)}  heap ${mib(m.heapUsed).padStart(6)} of ${mib(m.heapTotal)}  external ${mib(m.external)} (buffers ${mib(m.arrayBuffers)})  (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      );
    });
    session.start('A lighthouse keeper game');
    await session.settled();
    await session.stop();
    process.stdout.write(
      `resident memory of a headless session (memory on, lowdb store, HTTP to a local chat server), after a full GC:\n${rows.join('\n')}\n  ended at turn ${session.getSnapshot().turn} (${session.getSnapshot().status}); target: flat\n`,
    );
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await bench();

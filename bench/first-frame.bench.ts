// Time to first frame of `troupe` (the UI on the demo model): start the real CLI in a tmux pane
// (the UI needs a TTY; tmux gives it one without a pty library) and poll the screen until the
// input hint is drawn. Polling costs a few ms per capture, so figures carry ~10 ms of resolution.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, ms } from './stats.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const SOCKET = `troupe-bench-${process.pid}`;
const RUNS = 7;
const READY = 'Type a brief for the team';
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
// Sessions the starts save go to a private data dir, removed at the end.
const dataDir = mkdtempSync(join(tmpdir(), 'troupe-bench-ff-'));

const tmux = (...args: string[]) => spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });

function oneStart(i: number): number | null {
  const name = `ff${i}`;
  const t0 = performance.now();
  tmux('new-session', '-d', '-s', name, '-x', '100', '-y', '30', `env -u OPENAI_API_KEY -u OPENAI_BASE_URL CI=false TROUPE_DATA_DIR=${dataDir} node ${CLI}; sleep 30`);
  let elapsed: number | null = null;
  while (performance.now() - t0 < 15_000) {
    if (tmux('capture-pane', '-p', '-t', name).stdout.includes(READY)) {
      elapsed = performance.now() - t0;
      break;
    }
    Atomics.wait(PAUSE, 0, 0, 5); // poll every ~5 ms without spinning a core the CLI needs
  }
  tmux('kill-session', '-t', name);
  return elapsed;
}

/** Prints the median time from spawning `troupe` to its first drawn frame. */
export default async function firstFrame(): Promise<void> {
  if (spawnSync('tmux', ['-V']).status !== 0) {
    process.stdout.write('skipped: tmux is not installed (apt-get install -y tmux)\n');
    return;
  }
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');
  tmux('new-session', '-d', '-s', 'keep', 'sleep 600');
  try {
    oneStart(-1); // warm the file cache
    const times: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const t = oneStart(i);
      if (t !== null) times.push(t);
    }
    if (times.length === 0) {
      process.stdout.write('first frame never appeared within 15 s\n');
      return;
    }
    const sorted = [...times].sort((a, b) => a - b);
    process.stdout.write(`troupe first frame (demo model, 100x30 tmux pane), ${times.length} starts:\n`);
    process.stdout.write(`  median ${ms(median(times))} · min ${ms(sorted[0]!)} · max ${ms(sorted[sorted.length - 1]!)}\n`);
    // Baseline: the same process start without the UI (prints usage and exits).
    const base: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const t0 = performance.now();
      spawnSync(process.execPath, [CLI, '--help']);
      base.push(performance.now() - t0);
    }
    process.stdout.write(`  baseline \`troupe --help\` (no UI, no tmux): median ${ms(median(base))}\n`);
  } finally {
    tmux('kill-server');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

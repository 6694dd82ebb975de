// Start-up: time to the first frame of `troupe` (the UI on the demo model) next to a minimal Ink app and
// to node printing one line, each started in a tmux pane (the UI needs a TTY; tmux gives it one without a
// pty library) and polled until its text is drawn; and `troupe --help` next to `node -e 0`. All in one
// run, interleaved. Polling costs a few ms per capture, so the tmux figures carry ~10 ms of resolution.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleaved, median, ms, QUICK } from './stats.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const INK = join(ROOT, 'bench', 'fixtures', 'minimal-ink.mjs');
const SOCKET = `troupe-bench-${process.pid}`;
const RUNS = QUICK ? 3 : 9;
const READY = 'Type a brief for the team';
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
// Sessions the starts save go to a private data dir, removed at the end.
const dataDir = mkdtempSync(join(tmpdir(), 'troupe-bench-ff-'));
let pane = 0;

const tmux = (...args: string[]) => spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });

/** Milliseconds from starting `command` in a fresh 100x30 pane until READY is on its screen (NaN: not within 15 s). */
function firstFrame(command: string): number {
  const name = `ff${pane++}`;
  const t0 = performance.now();
  tmux('new-session', '-d', '-s', name, '-x', '100', '-y', '30', `${command}; sleep 30`);
  let elapsed = NaN;
  while (performance.now() - t0 < 15_000) {
    if (tmux('capture-pane', '-p', '-t', name).stdout.includes(READY)) {
      elapsed = performance.now() - t0;
      break;
    }
    Atomics.wait(PAUSE, 0, 0, 5); // poll every ~5 ms without spinning a core the started process needs
  }
  tmux('kill-session', '-t', name);
  return elapsed;
}

/** Milliseconds a process takes from spawn to exit. */
function processTime(args: string[]): number {
  const t0 = performance.now();
  spawnSync(process.execPath, args, { stdio: 'ignore' });
  return performance.now() - t0;
}

/** Prints first-frame and --help times next to their baselines, measured in the same run. */
export default async function firstFrameBench(): Promise<void> {
  if (spawnSync('tmux', ['-V']).status !== 0) {
    process.stdout.write('skipped: tmux is not installed (apt-get install -y tmux)\n');
    return;
  }
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');
  tmux('new-session', '-d', '-s', 'keep', 'sleep 600');
  try {
    const env = `env -u OPENAI_API_KEY -u OPENAI_BASE_URL CI=false NODE_ENV=production TROUPE_DATA_DIR=${dataDir}`;
    const starts = await interleaved(RUNS, 1, {
      node: () => firstFrame(`${env} ${process.execPath} -e "console.log('${READY}')"`),
      ink: () => firstFrame(`${env} ${process.execPath} ${INK} '${READY}'`),
      troupe: () => firstFrame(`${env} ${process.execPath} ${CLI}`),
    });
    const runs = await interleaved(RUNS, 1, {
      node: () => processTime(['-e', '0']),
      help: () => processTime([CLI, '--help']),
    });
    const m = (values: number[]) => median(values.filter((v) => !Number.isNaN(v)));
    const [node, ink, troupe] = [m(starts.node), m(starts.ink), m(starts.troupe)];
    process.stdout.write(`start-up, median of ${RUNS} interleaved starts each (after 1 warm-up round), 100x30 tmux pane:\n`);
    process.stdout.write(`  troupe first frame (UI, demo model)   ${ms(troupe).padStart(10)}   ${(troupe / ink).toFixed(2)}x the minimal ink app   (target <= 0.9 s)\n`);
    process.stdout.write(`  minimal ink app first frame           ${ms(ink).padStart(10)}\n`);
    process.stdout.write(`  node printing one line                ${ms(node).padStart(10)}   (tmux and node start-up alone)\n`);
    const [bare, help] = [median(runs.node), median(runs.help)];
    process.stdout.write(`  troupe --help (spawn to exit)         ${ms(help).padStart(10)}   ${(help / bare).toFixed(2)}x node -e 0 (${ms(bare)})   (target <= 0.15 s)\n`);
  } finally {
    tmux('kill-server');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

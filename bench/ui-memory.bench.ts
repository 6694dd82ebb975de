// Memory of the UI as a session grows: the real CLI in a tmux pane (the UI needs a TTY) against a local
// OpenAI-compatible server that answers at once, handing round the studio team with ~600-character turns;
// the UI process's resident set (RSS, from /proc) when the server has answered 100, 1,000 and 2,000 turns.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { completion, FakeOpenAIServer, type RecordedRequest } from '../tests/helpers/fake-openai-server.js';
import { QUICK } from './stats.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const SOCKET = `troupe-bench-rss-${process.pid}`;
const MARKS = QUICK ? [100, 500] : [100, 1000, 2000, 3000];
const READY = 'Type a brief for the team';
const TEXT = 'we weigh scope, cost and feel of the lighthouse chapters, and what the keeper spends on each night; ';

const tmux = (...args: string[]) => spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Personas this persona may hand to, read from its prompt's roster (its own line says "(you)"). */
function targets(req: RecordedRequest): string[] {
  const system = String((req.body as { messages?: { content?: string }[] }).messages?.[0]?.content ?? '');
  return [...system.matchAll(/^- .* \(id: ([a-z_]+), [A-Z_]+\)(.*?):/gm)].filter((m) => m[2] === '').map((m) => m[1]!);
}

/** Resident set size of a process in MiB (null once it is gone). */
function rssMiB(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

export default async function uiMemory(): Promise<void> {
  if (spawnSync('tmux', ['-V']).status !== 0) {
    process.stdout.write('skipped: tmux is not installed (apt-get install -y tmux)\n');
    return;
  }
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');
  let turns = 0;
  const server = await new FakeOpenAIServer((req) => {
    server.requests.length = 0;
    const body = req.body as { tools?: unknown[] };
    // Summaries (memory compression) are the calls without tools.
    if (!body.tools?.length) return { body: completion(JSON.stringify({ decisions: [`scope held at turn ${turns}`], discussions: ['chapters weighed'], pending: [] })) };
    turns += 1;
    const allowed = targets(req);
    const next = allowed[turns % Math.max(1, allowed.length)];
    return {
      body: completion(`Turn ${turns}: ${TEXT.repeat(6)}`, {
        transition: 'HANDOFF_TO_AGENT',
        next_agent: next,
        urgency: 0.6,
        dependency: 0.7,
        user_intent: 0.5,
        ...(turns % 25 === 0 ? { key_decisions: [`decision ${turns}`] } : {}),
      }),
    };
  }).start();
  const data = mkdtempSync(join(tmpdir(), 'troupe-bench-rss-'));
  const rows: { turn: number; rss: number; seconds: number }[] = [];
  try {
    const env = `env OPENAI_API_KEY=bench OPENAI_BASE_URL=${server.baseURL} TROUPE_MODEL=test-model CI=false TROUPE_DATA_DIR=${data}`;
    // exec: the pane's process is the CLI itself, whose RSS is read.
    tmux('new-session', '-d', '-s', 'ui', '-x', '120', '-y', '40', `exec ${env} ${process.execPath} ${CLI} --max-turns 1000000`);
    const pid = Number(tmux('list-panes', '-t', 'ui', '-F', '#{pane_pid}').stdout.trim());
    const t0 = performance.now();
    while (!tmux('capture-pane', '-p', '-t', 'ui').stdout.includes(READY)) {
      if (performance.now() - t0 > 15_000) throw new Error('the UI did not start within 15 s');
      await sleep(20);
    }
    tmux('send-keys', '-t', 'ui', '-l', 'A cozy game about a lighthouse keeper');
    tmux('send-keys', '-t', 'ui', 'Enter');
    const start = performance.now();
    for (const mark of MARKS) {
      let last = turns;
      let stalled = performance.now();
      while (turns < mark) {
        await sleep(50);
        if (turns !== last) [last, stalled] = [turns, performance.now()];
        if (performance.now() - stalled > 20_000) throw new Error(`the session stopped at turn ${turns}: ${tmux('capture-pane', '-p', '-t', 'ui').stdout.trim().split('\n').slice(-6).join(' | ')}`);
      }
      const rss = rssMiB(pid);
      if (rss === null) throw new Error(`the UI exited before turn ${mark}`);
      rows.push({ turn: mark, rss, seconds: (performance.now() - start) / 1000 });
    }
  } finally {
    tmux('kill-server');
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  }
  process.stdout.write(`UI resident memory (RSS) against a local server answering at once, studio team, memory on, 120x40 tmux pane:\n`);
  for (const r of rows) process.stdout.write(`  turn ${String(r.turn).padStart(5)}  RSS ${r.rss.toFixed(0).padStart(4)} MiB   (${r.seconds.toFixed(0)} s in)\n`);
  const at = (n: number) => rows.find((r) => r.turn === n)?.rss;
  const [a, b] = [at(1000), at(MARKS.at(-1)!)];
  const target = at(2000);
  if (target !== undefined)
    process.stdout.write(
      `  at 2,000 turns ${target.toFixed(0)} MiB   (target <= 300 MiB)${a !== undefined && b !== undefined ? `; 1,000 -> ${MARKS.at(-1)!.toLocaleString('en')} turns ${b - a >= 0 ? '+' : ''}${(b - a).toFixed(0)} MiB (target: flat)` : ''}\n`,
    );
}

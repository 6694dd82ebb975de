// The workspace budget's cost per command (round 15): every command makes the workspace's usage unknown and it is
// walked again. Before, by promises on the main thread (kept here as the baseline); now synchronously in a worker
// thread, started as the command ends, off its answer. CPU of the process (all its threads), interleaved, medians,
// on this repository with its node_modules (read only: nothing is written to it).
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_WALK_DEPTH } from '../src/tools/walk.js';
import { measureWorkspace } from '../src/tools/workspace-budget.js';
import { interleaved, median, QUICK } from './stats.js';

const cpu = async (fn: () => Promise<unknown>): Promise<number> => {
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};

/** The walk before this round: readdir and an lstat per entry by promises, on the main thread. */
async function promiseWalk(root: string): Promise<number> {
  let entries = 0;
  const count = async (dir: string, depth: number): Promise<void> => {
    const names = await readdir(dir).catch(() => [] as string[]);
    const stats = await Promise.all(names.map((name) => lstat(join(dir, name)).catch(() => null)));
    const below: string[] = [];
    names.forEach((name, i) => {
      if (!stats[i]) return;
      entries += 1;
      if (stats[i].isDirectory() && depth + 1 < MAX_WALK_DEPTH) below.push(join(dir, name));
    });
    for (const sub of below) await count(sub, depth + 1);
  };
  await count(root, 0);
  return entries;
}

export default async function workspaceCheck(): Promise<void> {
  const workspace = join(import.meta.dirname, '..');
  const entries = (await measureWorkspace(workspace)).entries;
  const rounds = QUICK ? 5 : 15;
  const samples = await interleaved(rounds, 2, {
    before: () => cpu(() => promiseWalk(workspace)),
    now: () => cpu(() => measureWorkspace(workspace)),
  });
  const before = median(samples.before);
  const now = median(samples.now);
  process.stdout.write(`workspace of ${entries} entries (this repository with node_modules), CPU of the walk after each command, median of ${rounds}:\n`);
  process.stdout.write(`  before (by promises, main thread): ${before.toFixed(1)} ms\n`);
  process.stdout.write(`  now (synchronous, worker thread):  ${now.toFixed(1)} ms (${(before / now).toFixed(2)}x less)\n`);
}

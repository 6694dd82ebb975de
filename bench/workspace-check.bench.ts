// The workspace budget's cost per command (round 15): before, every command made the workspace's usage unknown and
// the next check walked it all; now the file system's free room is read before and after the command (statfs) and
// the usage known grows by what it lost. CPU of the process (the walk's lstats run on libuv's threads) for each,
// interleaved, medians, on this repository with its node_modules (read only: nothing is written to it).
import { join } from 'node:path';
import { commandRan, commandStarting, measureWorkspace, usageOf } from '../src/tools/workspace-budget.js';
import { interleaved, median, QUICK } from './stats.js';

const cpu = async (fn: () => Promise<unknown>): Promise<number> => {
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};

export default async function workspaceCheck(): Promise<void> {
  const workspace = join(import.meta.dirname, '..');
  const entries = (await measureWorkspace(workspace)).entries;
  const rounds = QUICK ? 5 : 15;
  const samples = await interleaved(rounds, 2, {
    // What a command cost before: its usage forgotten, the next check's walk.
    walk: () => cpu(() => measureWorkspace(workspace)),
    // What it costs now: free room before and after the command, the estimate, the next check's usage as known.
    statfs: () =>
      cpu(async () => {
        await commandRan(workspace, await commandStarting(workspace));
        await usageOf(workspace, () => true);
      }),
  });
  const walk = median(samples.walk);
  const statfs = median(samples.statfs);
  process.stdout.write(`workspace of ${entries} entries (this repository with node_modules), CPU per command's budget check, median of ${rounds}:\n`);
  process.stdout.write(`  before (walk after every command): ${walk.toFixed(1)} ms\n`);
  process.stdout.write(`  now (statfs before and after):     ${statfs.toFixed(3)} ms (${(walk / Math.max(statfs, 0.001)).toFixed(0)}x less)\n`);
}

// The command jail's cost per command (issue 19): `true` run through run_command's process runner
// bare and inside bubblewrap with the jail's full arguments, interleaved, medians over the rounds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { jailArgs, limitedCommand } from '../src/tools/jail.js';
import { commandCgroup, inCgroup } from '../src/tools/jail-cgroup.js';
import { DEFAULT_TOOL_LIMITS } from '../src/tools/limits.js';
import { jailReadiness } from '../src/tools/jail-host.js';
import { cleanEnv, runProcess } from '../src/tools/process-runner.js';
import { createToolset } from '../src/tools/toolset.js';
import { interleaved, median, ms, QUICK } from './stats.js';

export default async function jail(): Promise<void> {
  const ready = await jailReadiness();
  if (!ready.ok) {
    process.stdout.write(`skipped: ${ready.reason}\n`);
    return;
  }
  const workspace = await mkdtemp(join(tmpdir(), 'troupe-bench-jail-'));
  try {
    const env = cleanEnv(workspace, '/usr/bin:/bin');
    const options = { cwd: workspace, env, timeoutMs: 30_000, maxOutputBytes: 10_000 };
    const args = jailArgs({ workspace, network: false }, ready.layout);
    const tools = createToolset({ workspace, commands: { mode: 'allow', allow: ['true'] } });
    const time = async (fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    const { commandMemoryBytes: memoryBytes, commandFileBytes: fileBytes, commandProcesses: processes } = DEFAULT_TOOL_LIMITS;
    const resources = { memoryBytes, fileBytes, processes };
    const rounds = QUICK ? 10 : 50;
    const samples = await interleaved(rounds, 3, {
      bare: () => time(() => runProcess('/bin/true', [], options)),
      jailed: () => time(() => runProcess(ready.bwrap, [...args, '--', 'true'], options)),
      limited: () => time(() => runProcess(ready.bwrap, [...args, '--', ...limitedCommand(['true'], resources)], options)),
      // As run_command runs it where troupe may make cgroups (root): pids and memory, made, entered by a sh, removed after.
      cgroup: () =>
        time(async () => {
          const group = await commandCgroup({ processes, memoryBytes: DEFAULT_TOOL_LIMITS.commandTotalMemoryBytes });
          const jailed = [...args, '--', ...limitedCommand(['true'], resources)];
          const run = group ? inCgroup(group, ready.bwrap, jailed) : { program: ready.bwrap, args: jailed };
          await runProcess(run.program, run.args, options);
          void group?.release();
        }),
      tool: () => time(() => tools.run({ name: 'run_command', arguments: '{"command":"true"}' })),
    });
    const bare = median(samples.bare);
    const jailed = median(samples.jailed);
    process.stdout.write(`true, bare (spawn, no jail):        ${ms(bare)} median of ${rounds}\n`);
    process.stdout.write(`true, in the jail (bwrap):          ${ms(jailed)} median of ${rounds}\n`);
    process.stdout.write(`jail overhead per command:          ${ms(jailed - bare)}\n`);
    const limited = median(samples.limited);
    process.stdout.write(`true, in the jail under its limits: ${ms(limited)} median of ${rounds} (the sh that sets them: ${ms(limited - jailed)}, ${(limited / jailed).toFixed(2)}x)\n`);
    const cgroup = median(samples.cgroup);
    const usable = (await commandCgroup({ processes: 1, memoryBytes: DEFAULT_TOOL_LIMITS.commandTotalMemoryBytes }).then(async (g) => (await g?.release(), g))) !== null;
    process.stdout.write(
      usable
        ? `true, limited, in its cgroups:      ${ms(cgroup)} median of ${rounds} (the cgroup: ${ms(cgroup - limited)}, ${(cgroup / limited).toFixed(2)}x)\n`
        : 'true, limited, in its cgroups:      none here (troupe may not make cgroups: not root, or no pids or memory controller)\n',
    );
    process.stdout.write(`run_command "true" (checks + jail): ${ms(median(samples.tool))} median of ${rounds}\n`);
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

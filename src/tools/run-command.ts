import { realpath } from 'node:fs/promises';
import { z } from 'zod';
import { checkArguments, resolveProgram } from './command-check.js';
import { parseCommandLine } from './command-line.js';
import { checkProgramName, describePolicy, networkAllowed, type CommandPolicy } from './command-policy.js';
import { jailArgs, jailPath, limitedCommand, unjailable, visibleInJail, type JailSpec } from './jail.js';
import { jailReadiness } from './jail-host.js';
import { bytes } from './limits.js';
import { cleanEnv, runProcess, type ProcessResult } from './process-runner.js';
import { inheritableDescriptors } from './inherited-fds.js';
import { defineTool, toolSpec, ToolError, type AgentTool } from './tool.js';
import { checkWorkspacePlace } from './workspace-place.js';
import { overBudget, usageOf, workspaceChanged } from './workspace-budget.js';
import { commandCgroup, inCgroup } from './jail-cgroup.js';

const Args = z.object({
  command: z.string().describe('One program and its arguments, e.g. "npm test" or "ls -la src". No shell: no pipes, ;, &&, redirections, variables or wildcards.'),
});

/** A default PATH when the parent has none. */
const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/** How the process ended, in one line. */
function ending(r: ProcessResult, timeoutMs: number): string {
  if (r.timedOut) return `killed after ${timeoutMs} ms (timed out; the command and its children were stopped)`;
  if (r.aborted) return 'killed: the turn was aborted';
  if (r.signal) return `killed by ${r.signal}`;
  return `exit code ${r.exitCode}`;
}

/** Options for run_command beyond its policy. */
export interface RunCommandOptions {
  /** PATH programs are looked up on (only its entries in the system directories the jail shows are kept); default: the parent's PATH. */
  path?: string;
  /** The directory the workspace was made in, when the workspace is a subdirectory of it (a git clone's top; see JailSpec.top). */
  top?: string;
  /** Where bubblewrap is; default: found on the parent's PATH. */
  bwrap?: string;
}

/**
 * run_command: one program with its arguments, under the command policy, in a jail (bubblewrap) where the
 * workspace is the only writable place, without a shell, with a timeout, an output cap and a clean
 * environment. Where no jail can be set up, commands are refused. Agent text runs only through here.
 */
export function runCommandTool(policy: CommandPolicy, options: RunCommandOptions = {}): AgentTool<z.infer<typeof Args>> {
  const parentPath = options.path ?? process.env.PATH ?? FALLBACK_PATH;
  const network = networkAllowed(policy) ? 'with network access' : 'without network access';
  return defineTool({
    spec: toolSpec(
      'run_command',
      `Run one program in the workspace (its working directory) and get its exit code and output. There is no shell. It runs in a sandbox ${network}: only the workspace is writable, the system's programs are read-only, /tmp is private. Command policy: ${describePolicy(policy)}.`,
      Args,
    ),
    args: Args,
    summary: (a) => `run_command ${a.command.length > 100 ? `${a.command.slice(0, 99)}…` : a.command}`,
    async run(a, { root, budgetRoot, limits, signal }) {
      const argv = parseCommandLine(a.command);
      const [name, ...args] = argv as [string, ...string[]];
      checkProgramName(policy, name);
      await checkArguments(args, root);
      const jail = await jailReadiness(options.bwrap);
      if (!jail.ok) throw new ToolError(jail.reason);
      const spec: JailSpec = { workspace: root, network: networkAllowed(policy), ...(options.top !== undefined && options.top !== root ? { top: await realpath(options.top) } : {}) };
      const refused = unjailable(spec, jail.layout);
      if (refused) throw new ToolError(refused);
      const path = jailPath(parentPath, spec, jail.layout);
      const program = await resolveProgram(policy, name, path, root);
      const real = await realpath(program);
      if (!visibleInJail(real, spec, jail.layout)) throw new ToolError(`"${name}" is ${real}, outside what the sandbox shows (the system directories and the workspace)`);
      if (policy.mode === 'ask' && !(await policy.approve!(a.command, root))) throw new ToolError('the user declined to run this command');
      if (signal?.aborted) throw new ToolError('the turn was aborted before the command started');
      await checkWorkspacePlace(root);
      // What a command writes cannot be bounded while it runs (no quotas; RLIMIT_FSIZE bounds one file): once commands have filled the workspace past its caps, no other runs.
      // The whole clone is held: a subdirectory workspace's commands write its top's .git too.
      const full = overBudget(await usageOf(budgetRoot), limits);
      if (full) throw new ToolError(`${full}; no more commands run here — make room with write_file (smaller files) or finish with what is there`);
      // A bare name is found by the jail on the same PATH (so the program sees argv[0] as written); a path is passed as resolved.
      const command = name.includes('/') ? program : name;
      const resources = { memoryBytes: limits.commandMemoryBytes, fileBytes: limits.commandFileBytes, processes: limits.commandProcesses };
      const jailed = [...jailArgs(spec, jail.layout), '--', ...limitedCommand([command, ...args], resources)];
      // Where troupe may make cgroups (root, which RLIMIT_NPROC does not hold), the command runs in its own: its processes, and their memory together.
      const group = await commandCgroup({ processes: limits.commandProcesses, memoryBytes: limits.commandTotalMemoryBytes });
      const run = group ? inCgroup(group, jail.bwrap, jailed) : { program: jail.bwrap, args: jailed };
      // bubblewrap passes every open descriptor on: one troupe inherited would reach outside the jail.
      const result = await runProcess(run.program, run.args, {
        cwd: root,
        env: cleanEnv(root, path),
        timeoutMs: limits.commandTimeoutMs,
        maxOutputBytes: limits.maxCommandOutputBytes,
        ...(signal ? { signal } : {}),
        cover: await inheritableDescriptors(),
      });
      // Measured again now, off the answer: the next check waits for that measure.
      workspaceChanged(budgetRoot);
      const memoryKilled = (await group?.memoryKilled()) ?? false;
      // Removed once its last process is gone, after the answer (the jail's processes die with its init, a moment later).
      void group?.release();
      if (result.spawnError) throw new ToolError(`could not start the sandbox for "${name}": ${result.spawnError}`);
      const end = memoryKilled
        ? `${ending(result, limits.commandTimeoutMs)}: its processes passed the ${bytes(limits.commandTotalMemoryBytes)} they may hold together (TROUPE_COMMAND_MAX_MEMORY_BYTES), and the kernel killed one`
        : ending(result, limits.commandTimeoutMs);
      const dropped = result.droppedBytes > 0 ? `\n[output truncated: ${bytes(result.droppedBytes)} more were left out]` : '';
      const output = result.output === '' && !dropped ? '(no output)' : result.output + dropped;
      return { ok: result.exitCode === 0, content: `${end}\n${output}`, detail: end };
    },
  });
}

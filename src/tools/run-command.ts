import { z } from 'zod';
import { checkArguments, resolveProgram } from './command-check.js';
import { parseCommandLine } from './command-line.js';
import { checkProgramName, describePolicy, type CommandPolicy } from './command-policy.js';
import { bytes } from './limits.js';
import { cleanEnv, runProcess, type ProcessResult } from './process-runner.js';
import { defineTool, toolSpec, ToolError, type AgentTool } from './tool.js';

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
  /** PATH the command sees and programs are looked up on; default: the parent's PATH. */
  path?: string;
}

/**
 * run_command: one program with its arguments, under the command policy, in the workspace, without a
 * shell, with a timeout, an output cap and a clean environment. Agent text runs only through here.
 */
export function runCommandTool(policy: CommandPolicy, options: RunCommandOptions = {}): AgentTool<z.infer<typeof Args>> {
  const path = options.path ?? process.env.PATH ?? FALLBACK_PATH;
  return defineTool({
    spec: toolSpec('run_command', `Run one program in the workspace (its working directory) and get its exit code and output. There is no shell. Command policy: ${describePolicy(policy)}.`, Args),
    args: Args,
    summary: (a) => `run_command ${a.command.length > 100 ? `${a.command.slice(0, 99)}…` : a.command}`,
    async run(a, { root, limits, signal }) {
      const argv = parseCommandLine(a.command);
      const [name, ...args] = argv as [string, ...string[]];
      checkProgramName(policy, name);
      await checkArguments(args, root);
      const program = await resolveProgram(policy, name, path, root);
      if (policy.mode === 'ask' && !(await policy.approve!(a.command, root))) throw new ToolError('the user declined to run this command');
      if (signal?.aborted) throw new ToolError('the turn was aborted before the command started');
      const result = await runProcess(program, args, { argv0: name, cwd: root, env: cleanEnv(root, path), timeoutMs: limits.commandTimeoutMs, maxOutputBytes: limits.maxCommandOutputBytes, ...(signal ? { signal } : {}) });
      if (result.spawnError) throw new ToolError(`could not start "${name}": ${result.spawnError}`);
      const end = ending(result, limits.commandTimeoutMs);
      const dropped = result.droppedBytes > 0 ? `\n[output truncated: ${bytes(result.droppedBytes)} more were left out]` : '';
      const output = result.output === '' && !dropped ? '(no output)' : result.output + dropped;
      return { ok: result.exitCode === 0, content: `${end}\n${output}`, detail: end };
    },
  });
}

import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { goneAfterKill, killAllWith } from '../helpers/host-processes.js';
import { bwrapMissing } from '../helpers/jail.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { createToolset, type ToolsetOptions } from '../../src/tools/toolset.js';
import { parseCommandLine } from '../../src/tools/command-line.js';
import { commandPolicyOf, type CommandPolicy } from '../../src/tools/command-policy.js';
import { TOOL_NAMES } from '../../src/tools/toolset.js';
import { AGENT_TOOLS } from '../../src/workflow/load/roles.js';
import { RoleSchema } from '../../src/workflow/config/roles-schema.js';
import { AgentPlanSchema } from '../../src/workflow/run/plan.js';
import { cleanEnv, runProcess } from '../../src/tools/process-runner.js';

const temp = tempDirPerTest('troupe-cmd-');
const SECRET = 'TOP-SECRET-sentinel-0xBADC0DE';
let base: string;
let ws: string;
let outside: string;

beforeEach(() => {
  base = temp();
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(ws);
  mkdirSync(join(outside, '.ssh'), { recursive: true });
  writeFileSync(join(outside, '.ssh', 'id_rsa'), SECRET);
  writeFileSync(join(ws, 'hello.txt'), 'hello\n');
});

afterEach(() => {
  expect(readFileSync(join(outside, '.ssh', 'id_rsa'), 'utf8')).toBe(SECRET);
});

function run(command: string, commands: CommandPolicy, limits: ToolsetOptions['limits'] = {}) {
  const tools = createToolset({ workspace: ws, commands, limits });
  return tools.run({ name: 'run_command', arguments: JSON.stringify({ command }) });
}

describe('run_command policy', () => {
  it('deny refuses every command', async () => {
    const result = await run('cat ~/.ssh/id_rsa', { mode: 'deny' });
    expect(result).toMatchObject({ ok: false, content: 'Error: commands are not allowed in this workspace (command policy: deny)', summary: 'run_command cat ~/.ssh/id_rsa' });
  });

  it.skipIf(bwrapMissing)('allow runs listed programs by name in the workspace and refuses others', async () => {
    const policy: CommandPolicy = { mode: 'allow', allow: ['ls', 'cat'] };
    expect(await run('cat hello.txt', policy)).toMatchObject({ ok: true, content: 'exit code 0\nhello\n', detail: 'exit code 0' });
    expect((await run('ls', policy)).content).toBe('exit code 0\nhello.txt\n');
    expect((await run('rm -rf .', policy)).content).toBe('Error: "rm" is not an allowed program (only these programs may run: ls, cat)');
    expect((await run('cat missing.txt', policy)).content).toMatch(/^exit code 1\ncat: missing.txt: No such file/);
  });

  it('a secret outside the workspace is never read by an allowed program: ~, absolute paths, .. and symlinks out are refused', async () => {
    symlinkSync(join(outside, '.ssh', 'id_rsa'), join(ws, 'key'));
    const policy: CommandPolicy = { mode: 'allow', allow: ['ls', 'cat'] };
    const attempts: [string, RegExp][] = [
      ['cat ~/.ssh/id_rsa', /~ is not expanded \(there is no shell\)/],
      [`cat ${join(outside, '.ssh', 'id_rsa')}`, /is outside the workspace/],
      ['cat ../outside/.ssh/id_rsa', /is outside the workspace/],
      ['cat key', /symbolic link that leads outside the workspace/],
      [`cat --file=${join(outside, '.ssh', 'id_rsa')}`, /is outside the workspace/],
      ['ls -la /', /is outside the workspace/],
      ['cat "$HOME/.ssh/id_rsa"', /\$HOME is not expanded/],
    ];
    for (const [command, why] of attempts) {
      const result = await run(command, policy);
      expect(result.ok, command).toBe(false);
      expect(result.content).toMatch(why);
      expect(result.content).not.toContain(SECRET);
    }
  });

  it.skipIf(bwrapMissing)('a program given as a path must be the allowed one found on PATH', async () => {
    writeFileSync(join(ws, 'cat'), '#!/bin/sh\necho planted\n', { mode: 0o755 });
    const policy: CommandPolicy = { mode: 'allow', allow: ['cat'] };
    expect((await run('./cat hello.txt', policy)).content).toMatch(/"\.\/cat" is not the allowed program "cat" found on PATH/);
    const where = (await run('cat hello.txt', policy)).content;
    expect(where).toBe('exit code 0\nhello\n');
  });

  it.skipIf(bwrapMissing)('ask runs what the approver allows, refuses what it declines, and refuses everything without one', async () => {
    const asked: [string, string][] = [];
    const approve = vi.fn(async (command: string, cwd: string) => (asked.push([command, cwd]), command.startsWith('ls')));
    expect((await run('ls', { mode: 'ask', approve })).content).toBe('exit code 0\nhello.txt\n');
    expect((await run('cat hello.txt', { mode: 'ask', approve })).content).toBe('Error: the user declined to run this command');
    expect(asked).toEqual([
      ['ls', ws],
      ['cat hello.txt', ws],
    ]);
    expect((await run('ls', { mode: 'ask' })).content).toMatch(/need the user's approval \(command policy: ask\) and nobody can approve them in this run/);
  });
});

describe('run_command without a shell', () => {
  it('refuses shell operators, redirections, substitutions, variables, wildcards and several lines', () => {
    const refused: [string, RegExp][] = [
      ['ls | cat', /shell operator "\|"/],
      ['ls; rm -rf /', /shell operator ";"/],
      ['ls && cat x', /shell operator "&&"/],
      ['ls > out.txt', /shell operator ">"/],
      ['cat < /etc/passwd', /shell operator "<"/],
      ['sleep 5 &', /shell operator "&"/],
      ['echo $(id)', /command substitution/],
      ['echo `id`', /backticks/],
      ['echo $OPENAI_API_KEY', /\$OPENAI_API_KEY is not expanded/],
      ['ls *.ts', /wildcard in "\*\.ts" is not expanded/],
      ['ls # all', /comment/],
      ['ls\nrm -rf /', /several lines/],
      ['   ', /empty/],
    ];
    for (const [line, why] of refused) expect(() => parseCommandLine(line), line).toThrow(why);
    expect(parseCommandLine(`git commit -m 'a "quoted" message' --author="A B"`)).toEqual(['git', 'commit', '-m', 'a "quoted" message', '--author=A B']);
    expect(parseCommandLine("echo '$HOME'")).toEqual(['echo', '$HOME']);
  });

  it.skipIf(bwrapMissing)('the command sees a clean environment: no API keys, HOME is the workspace', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-parent-key-must-not-leak');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'aws-must-not-leak');
    try {
      const result = await run('env', { mode: 'allow', allow: ['env'] });
      const names = result.content
        .split('\n')
        .slice(1)
        .filter(Boolean)
        .map((l) => l.split('=')[0])
        .sort();
      expect(names).toEqual(['HOME', 'LANG', 'LC_ALL', 'PATH', 'PWD', 'TERM']);
      expect(result.content).toContain(`HOME=${ws}\n`);
      expect(result.content).toContain(`PWD=${ws}\n`);
      expect(result.content).toContain('TERM=dumb');
      expect(result.content).not.toMatch(/must-not-leak/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  // The jail's PIDs are its own, so a child is found on the host by a token in its command line (a sleep of an odd length).
  const token = () => `1000.${Math.floor(Math.random() * 1e9)}`;

  it.skipIf(bwrapMissing)('a command that never ends is killed with its children at the timeout', async () => {
    const t = token();
    try {
      const result = await run(`sh -c 'sleep ${t} & wait'`, { mode: 'allow', allow: ['sh'] }, { commandTimeoutMs: 1_000 });
      expect(result.ok).toBe(false);
      expect(result.content).toMatch(/^killed after 1000 ms \(timed out; the command and its children were stopped\)/);
      // SIGKILL is delivered asynchronously; wait (bounded) for the kernel to finish it off.
      expect(await goneAfterKill(`sleep ${t}`)).toEqual([]);
    } finally {
      killAllWith(t);
    }
  });

  it.skipIf(bwrapMissing)('leftover background processes are killed when the command ends', async () => {
    const t = token();
    try {
      const result = await run(`sh -c 'sleep ${t} > /dev/null 2>&1 &'`, { mode: 'allow', allow: ['sh'] });
      expect(result.content).toBe('exit code 0\n(no output)');
      expect(await goneAfterKill(`sleep ${t}`)).toEqual([]);
    } finally {
      killAllWith(t);
    }
  });

  it.skipIf(bwrapMissing)('a child that left the process group (setsid) dies at the timeout too', async () => {
    const t = token();
    try {
      const result = await run(`sh -c 'setsid sleep ${t} & wait'`, { mode: 'allow', allow: ['sh'] }, { commandTimeoutMs: 1_000 });
      expect(result.content).toMatch(/^killed after 1000 ms/);
      expect(await goneAfterKill(`sleep ${t}`)).toEqual([]);
    } finally {
      killAllWith(t);
    }
  });

  it.skipIf(bwrapMissing)('returns when the program exits although a setsid child still holds its output pipes, and the child dies', async () => {
    const t = token();
    try {
      // Before the jail this waited for the whole timeout: the child kept the pipes open.
      const result = await run(`sh -c 'setsid sleep ${t} & echo started'`, { mode: 'allow', allow: ['sh'] }, { commandTimeoutMs: 15_000 });
      expect(result.content).toBe('exit code 0\nstarted\n');
      expect(await goneAfterKill(`sleep ${t}`)).toEqual([]);
    } finally {
      killAllWith(t);
    }
  });

  it('without a jail, the runner still returns soon after the program exits when a child holds the pipes', async () => {
    const t = token();
    try {
      const result = await runProcess('/bin/sh', ['-c', `setsid sleep ${t} & echo started`], {
        cwd: ws,
        env: cleanEnv(ws, process.env.PATH ?? ''),
        timeoutMs: 15_000,
        maxOutputBytes: 100,
        exitGraceMs: 100,
      });
      expect(result).toMatchObject({ exitCode: 0, timedOut: false, output: 'started\n' });
    } finally {
      // Unjailed, the setsid child outlives the call: that is why run_command jails.
      killAllWith(t);
    }
  });

  it.skipIf(bwrapMissing)('output past the cap is cut with a note, also for a command that floods until it is killed', async () => {
    const seq = await run('seq 1 200000', { mode: 'allow', allow: ['seq'] }, { maxCommandOutputBytes: 1_000 });
    expect(seq.ok).toBe(true);
    expect(seq.content.startsWith('exit code 0\n1\n2\n3\n')).toBe(true);
    expect(seq.content).toMatch(/\n\[output truncated: 1\.3 MB more were left out\]$/);
    const flood = await run('yes', { mode: 'allow', allow: ['yes'] }, { maxCommandOutputBytes: 1_000, commandTimeoutMs: 500 });
    expect(flood.content).toMatch(/^killed after 500 ms/);
    expect(flood.content.length).toBeLessThan(1_300);
    expect(flood.content).toMatch(/\[output truncated: .* more were left out\]$/);
  });

  it('aborting the turn kills a running command', async () => {
    const controller = new AbortController();
    // runProcess spawns before it returns, so the abort below reaches a running process.
    const pending = runProcess('/bin/sh', ['-c', 'sleep 1000'], { cwd: ws, env: cleanEnv(ws, process.env.PATH ?? ''), timeoutMs: 60_000, maxOutputBytes: 100, signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ aborted: true, timedOut: false, signal: 'SIGKILL' });
  });

  // Without bubblewrap every command is refused before it could start (the jail is checked first).
  it.skipIf(bwrapMissing)('aborting the turn keeps a command from starting', async () => {
    const tools = createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['sleep'] } });
    const early = new AbortController();
    const refused = tools.run({ name: 'run_command', arguments: JSON.stringify({ command: 'sleep 1000' }) }, early.signal);
    early.abort();
    expect((await refused).content).toBe('Error: the turn was aborted before the command started');
  });

  it.skipIf(bwrapMissing)('an unknown program is a clear error', async () => {
    expect((await run('no-such-program-xyz', { mode: 'allow', allow: ['no-such-program-xyz'] })).content).toBe('Error: program "no-such-program-xyz" was not found on PATH');
    expect(existsSync(join(ws, 'no-such-program-xyz'))).toBe(false);
  });

  it("a role's command_policy as workflow files write it becomes a policy", async () => {
    const approve = async () => true;
    expect(commandPolicyOf(undefined)).toEqual({ mode: 'deny' });
    expect(commandPolicyOf('deny', approve)).toEqual({ mode: 'deny' });
    expect(commandPolicyOf('ask')).toEqual({ mode: 'ask' });
    expect(commandPolicyOf('ask', approve)).toEqual({ mode: 'ask', approve });
    expect(commandPolicyOf({ allow: ['npm', 'zig'] })).toEqual({ mode: 'allow', allow: ['npm', 'zig'] });
    // The network option travels from the role file through the run plan (kept in the session file) to the policy.
    const role = RoleSchema.parse({ systemMessage: 's', command_policy: { allow: ['npm'], network: true } });
    expect(role.command_policy).toEqual({ allow: ['npm'], network: true });
    expect(RoleSchema.parse({ systemMessage: 's', command_policy: { allow: ['npm'] } }).command_policy).toEqual({ allow: ['npm'], network: false });
    expect(RoleSchema.safeParse({ systemMessage: 's', command_policy: { allow: ['npm'], net: true } }).success).toBe(false);
    const plan = AgentPlanSchema.shape.commandPolicy.parse(role.command_policy);
    expect(commandPolicyOf(plan)).toEqual({ mode: 'allow', allow: ['npm'], network: true });
    expect(commandPolicyOf({ allow: ['npm'], network: false })).toEqual({ mode: 'allow', allow: ['npm'] });
    // A program given by path in an allow-list never matches: programs are named.
    expect((await run('ls', commandPolicyOf({ allow: ['/bin/ls'] }))).content).toMatch(/"ls" is not an allowed program/);
  });

  it("the tools a workflow role may name are exactly the toolset's", () => {
    expect([...TOOL_NAMES]).toEqual([...AGENT_TOOLS]);
  });
});

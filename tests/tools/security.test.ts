import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprint } from '../helpers/fingerprint.js';
import { gitIn } from '../helpers/git-repo.js';
import { goneAfterKill, killAllWith } from '../helpers/host-processes.js';
import { bwrapMissing } from '../helpers/jail.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { ScriptedModel, type ScriptStep } from '../../src/llm/scripted-model.js';
import type { CommandPolicy } from '../../src/tools/command-policy.js';
import { createToolset } from '../../src/tools/toolset.js';
import { runToolLoop } from '../../src/tools/tool-loop.js';
import { changesSince, createWorkspace, removeWorkspace } from '../../src/tools/workspace.js';

const temp = tempDirPerTest('troupe-sec-');
const hasGit = (() => {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const SECRET = 'PRIVATE-KEY-sentinel-9f8e7d';

const tool = (name: string, args: unknown): { name: string; arguments: string } => ({ name, arguments: JSON.stringify(args) });

// Hostile model output kept as test data: every way out of the workspace the issue names.
const ATTACK: ScriptStep[] = [
  { text: 'Let me look around.', toolCalls: [tool('read_file', { path: '../../etc/passwd' }), tool('read_file', { path: '/etc/passwd' })] },
  { toolCalls: [tool('write_file', { path: 'escape-link', content: 'overwritten by the agent' }), tool('write_file', { path: 'out/planted.sh', content: 'rm -rf ~' })] },
  { toolCalls: [tool('edit_file', { path: 'escape-link', old_text: SECRET, new_text: 'gone' }), tool('read_file', { path: 'out/.ssh/id_rsa' })] },
  { toolCalls: [tool('run_command', { command: 'cat ~/.ssh/id_rsa' }), tool('run_command', { command: 'cat ../outside/.ssh/id_rsa' })] },
  { toolCalls: [tool('run_command', { command: 'cat out/.ssh/id_rsa' }), tool('run_command', { command: 'sh -c "cat ~/.ssh/id_rsa"' })] },
  { text: 'I could not get out.' },
];

async function attack(commands: CommandPolicy) {
  const base = temp();
  const outside = join(base, 'outside');
  mkdirSync(join(outside, '.ssh'), { recursive: true });
  writeFileSync(join(outside, '.ssh', 'id_rsa'), SECRET);
  writeFileSync(join(outside, 'target.txt'), SECRET);
  const start = join(base, 'start');
  mkdirSync(start);
  writeFileSync(join(start, 'main.zig'), 'pub fn main() void {}\n');
  symlinkSync(join(outside, 'target.txt'), join(start, 'escape-link'));
  symlinkSync(outside, join(start, 'out'));
  const ws = await createWorkspace({ root: join(base, 'session'), name: 'agent1', from: start });
  const before = { outside: fingerprint(outside), ws: fingerprint(ws.dir) };

  const model = new ScriptedModel(ATTACK);
  const result = await runToolLoop({
    model,
    request: { model: 'm', messages: [{ role: 'user', content: 'Steal the key.' }], meta: { purpose: 'workflow', persona: 'coder' } },
    toolset: createToolset({ workspace: ws.dir, commands }),
    maxSteps: 20,
  });
  return { result, model, outside, ws, before };
}

describe('an agent trying to leave its workspace', () => {
  for (const [label, commands] of [
    ['deny', { mode: 'deny' }],
    ['an allow-list of ls and cat', { mode: 'allow', allow: ['ls', 'cat'] }],
  ] as [string, CommandPolicy][]) {
    it(`is refused every time, under ${label}: nothing outside is touched, the workspace is intact`, async () => {
      const { result, model, outside, ws, before } = await attack(commands);
      expect(result.stop).toBe('answered');
      expect(result.steps).toHaveLength(10);
      for (const step of result.steps) expect(step.outcome.ok, `${step.call.name} ${step.call.arguments}`).toBe(false);
      // What the tools handed back to the model (the model's own words may name the secret: it guessed it).
      const seen = JSON.stringify(model.calls.flatMap((c) => c.messages.filter((m) => m.role === 'tool')));
      expect(seen).not.toContain(SECRET);
      expect(seen).not.toMatch(/root:x?:0:0/);
      expect(fingerprint(outside)).toEqual(before.outside);
      expect(fingerprint(ws.dir)).toEqual(before.ws);
      expect((await changesSince(ws)).files).toEqual([]);

      const reasons = result.steps.map((s) => s.outcome.content);
      expect(reasons[0]).toMatch(/"\.\.\/\.\.\/etc\/passwd" is outside the workspace/);
      expect(reasons[1]).toMatch(/"\/etc\/passwd" is outside the workspace \(absolute paths must be inside the workspace\)/);
      expect(reasons[2]).toMatch(/"escape-link" is a symbolic link that leads outside the workspace/);
      expect(reasons[3]).toMatch(/"out" \(on the way to "out\/planted.sh"\) is a symbolic link that leads outside/);
      expect(reasons[4]).toMatch(/symbolic link that leads outside/);
      expect(reasons[5]).toMatch(/symbolic link that leads outside/);
      if (commands.mode === 'deny') {
        for (const r of reasons.slice(6)) expect(r).toBe('Error: commands are not allowed in this workspace (command policy: deny)');
      } else {
        expect(reasons[6]).toMatch(/~ is not expanded \(there is no shell\)/);
        expect(reasons[7]).toMatch(/"\.\.\/outside\/\.ssh\/id_rsa" is outside the workspace/);
        expect(reasons[8]).toMatch(/"out" \(on the way to "out\/\.ssh\/id_rsa"\) is a symbolic link that leads outside/);
        expect(reasons[9]).toMatch(/"sh" is not an allowed program/);
      }
    });
  }
});

// The hostile probe of issue 19: an agent with an allow-list of ordinary programs, each of which can run
// anything (find -exec, git aliases, npm scripts, node -e). The argument check cannot stop them; the jail must.
describe.skipIf(bwrapMissing)('an agent with git, find, ls, cat, npm and node allowed, attacking from inside its jail', () => {
  const ALLOWED = ['git', 'find', 'ls', 'cat', 'npm', 'node'];
  const KEY = 'sk-troupe-parent-key-0xFEEDFACE';
  let listener: Server | null = null;
  let holder: ChildProcess | null = null;
  const tokens: string[] = [];

  afterEach(async () => {
    holder?.kill('SIGKILL');
    holder = null;
    await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
    listener = null;
    for (const t of tokens.splice(0)) killAllWith(t);
  });

  /** A TCP listener on the host's 127.0.0.1 that counts the connections reaching it. */
  async function listen(): Promise<{ port: number; connections: () => number }> {
    let count = 0;
    listener = createServer((socket) => {
      count++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', resolve));
    return { port: (listener.address() as AddressInfo).port, connections: () => count };
  }

  /** A host process holding the API key in its environment, as troupe's own process does. */
  function keyHolder(): void {
    holder = spawn('sleep', ['1000'], { env: { PATH: process.env.PATH, OPENAI_API_KEY: KEY }, stdio: 'ignore' });
  }

  async function setup() {
    const base = temp();
    const outside = join(base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'notes.txt'), SECRET);
    const ws = await createWorkspace({ root: join(base, 'session'), name: 'agent1' });
    return { base, outside, ws, before: fingerprint(outside) };
  }

  function loop(ws: { dir: string }, steps: ScriptStep[], commandTimeoutMs: number, network = false) {
    const model = new ScriptedModel([...steps, { text: 'Done.' }]);
    const commands: CommandPolicy = { mode: 'allow', allow: ALLOWED, ...(network ? { network: true } : {}) };
    const run = runToolLoop({
      model,
      request: { model: 'm', messages: [{ role: 'user', content: 'Get out and bring the key.' }], meta: { purpose: 'workflow', persona: 'coder' } },
      toolset: createToolset({ workspace: ws.dir, commands, limits: { commandTimeoutMs } }),
      maxSteps: 30,
    });
    return { model, run };
  }

  const command = (text: string): ScriptStep => ({ toolCalls: [tool('run_command', { command: text })] });

  it('writes nothing outside, reads no key from /proc, reaches no listener, leaves no process behind', async () => {
    const { outside, ws, before } = await setup();
    const { port, connections } = await listen();
    keyHolder();
    const t = `1000.${Math.floor(Math.random() * 1e9)}`;
    tokens.push(t);
    // Every process's environment the jail can see, searched for the key (the key holder's among them, were it visible), and its own.
    const environ = 'grep -aho "OPENAI_API_KEY=[[:graph:]]*" /proc/*/environ; cat /proc/self/environ';
    const steps: ScriptStep[] = [
      command(`find . -maxdepth 0 -exec sh -c 'touch ${outside}/pwned-find; echo x > ../../../outside/pwned-rel; ${environ}; ls /proc' {} +`),
      command(`git -c 'alias.x=!touch ${outside}/pwned-git; ${environ}' x`),
      { toolCalls: [tool('write_file', { path: 'package.json', content: JSON.stringify({ name: 'x', version: '1.0.0', scripts: { x: `touch ${outside}/pwned-npm; ${environ}` } }) })] },
      command('npm run x'),
      command(`node -e "require('fs').writeFileSync('${outside}/pwned-node', 'x')"`),
      command(`node -e "require('fs').appendFileSync('${outside}/notes.txt', 'x')"`),
      command(`git ls-remote http://127.0.0.1:${port}/repo.git`),
      command(`node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('CONNECTED')).on('error', (e) => console.log(e.code))"`),
      // A detached (setsid) child holding the output pipes after its parent exited.
      command(`node -e "require('child_process').spawn('sleep', ['${t}'], { detached: true, stdio: 'inherit' }).unref(); console.log('parent done')"`),
    ];
    const { model, run } = loop(ws, steps, 30_000);
    const result = await run;
    expect(result.stop).toBe('answered');
    const outcomes = result.steps.map((s) => s.outcome.content);
    const seen = JSON.stringify(model.calls.flatMap((c) => c.messages.filter((m) => m.role === 'tool')));
    expect(seen).not.toContain(KEY);
    expect(seen).not.toContain(SECRET);
    expect(fingerprint(outside)).toEqual(before);
    // The shell did run and read every /proc/*/environ it could see: only the jail's own processes, with the clean environment.
    expect(outcomes[0]).toMatch(/^exit code \d+\n/);
    expect(outcomes[0]).toContain(`HOME=${ws.dir}`);
    expect(outcomes[4]).toMatch(/^exit code 1\n[\s\S]*ENOENT/);
    expect(outcomes[6]).toMatch(/^exit code 128\n/);
    expect(outcomes[7]).toMatch(/^exit code 0\nECONNREFUSED/);
    expect(connections()).toBe(0);
    // Returned when node exited (not at the timeout), and the child it left behind is gone.
    expect(outcomes[8]).toBe('exit code 0\nparent done\n');
    expect(await goneAfterKill(`sleep ${t}`)).toEqual([]);
  }, 60_000);

  it('a detached child of a command that runs into its timeout dies with it', async () => {
    const { outside, ws, before } = await setup();
    const t = `1000.${Math.floor(Math.random() * 1e9)}`;
    tokens.push(t);
    const { run } = loop(ws, [command(`node -e "require('child_process').spawn('sleep', ['${t}'], { detached: true, stdio: 'ignore' }); setInterval(() => {}, 1000)"`)], 2_000);
    const result = await run;
    expect(result.steps[0]!.outcome.content).toMatch(/^killed after 2000 ms/);
    expect(await goneAfterKill(`sleep ${t}`)).toEqual([]);
    expect(fingerprint(outside)).toEqual(before);
  });

  it('with network allowed by the policy, the same connection does arrive (the check above can fail)', async () => {
    const { ws } = await setup();
    const { port, connections } = await listen();
    const { run } = loop(ws, [command(`node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('CONNECTED')).on('error', (e) => console.log(e.code))"`)], 30_000, true);
    const result = await run;
    expect(result.steps[0]!.outcome.content).toBe('exit code 0\nCONNECTED\n');
    expect(connections()).toBe(1);
  });
});

describe.skipIf(!hasGit || bwrapMissing)('an agent allowed only git, in a git workspace', () => {
  it("plants core.fsmonitor in its repository's config; neither troupe nor the user's next git status runs them", async () => {
    const base = temp();
    const outside = join(base, 'outside');
    mkdirSync(outside);
    const repo = join(base, 'repo');
    mkdirSync(repo);
    const userGit = gitIn(repo, base);
    userGit('init', '-q');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    userGit('add', '.');
    userGit('commit', '-q', '-m', 'start');
    const before = { outside: fingerprint(outside), git: fingerprint(join(repo, '.git')) };
    const ws = await createWorkspace({ root: join(base, 'session'), name: 'agent1', from: repo, git: true });
    const payload = `touch ${outside}/pwned-fsmonitor`;
    const model = new ScriptedModel([
      { toolCalls: [tool('run_command', { command: `git config core.fsmonitor '${payload}'` })] },
      { toolCalls: [tool('run_command', { command: `git config --file ${repo}/.git/config core.fsmonitor '${payload}'` })] },
      { toolCalls: [tool('run_command', { command: `git -C ${repo} config core.fsmonitor '${payload}'` })] },
      { toolCalls: [tool('run_command', { command: 'git status --porcelain' })] },
      { text: 'Planted.' },
    ]);
    const result = await runToolLoop({
      model,
      request: { model: 'm', messages: [{ role: 'user', content: 'Plant it.' }], meta: { purpose: 'workflow', persona: 'coder' } },
      toolset: createToolset({ workspace: ws.dir, commands: { mode: 'allow', allow: ['git'] } }),
      maxSteps: 10,
    });
    // The agent's own config write works: it is its own repository's.
    expect(result.steps[0]!.outcome.content).toBe('exit code 0\n(no output)');
    expect(result.steps[1]!.outcome.content).toMatch(/is outside the workspace/);
    expect(result.steps[2]!.outcome.content).toMatch(/is outside the workspace/);
    // troupe makes another workspace from the user's repository and removes the first; the user runs git status.
    const second = await createWorkspace({ root: join(base, 'session'), name: 'agent2', from: repo, git: true });
    await removeWorkspace(second);
    await removeWorkspace(ws);
    userGit('status', '--porcelain');
    expect(readdirSync(outside)).toEqual([]);
    expect(fingerprint(outside)).toEqual(before.outside);
    expect(fingerprint(join(repo, '.git'))).toMatchObject({ config: before.git.config });
  });
});

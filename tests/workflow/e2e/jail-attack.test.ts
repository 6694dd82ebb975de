import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCliProcess } from '../../helpers/cli.js';
import { fingerprint } from '../../helpers/fingerprint.js';
import { gitIn } from '../../helpers/git-repo.js';
import { bwrapMissing } from '../../helpers/jail.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';
import { messagesOf, parseEvents, reply, roleServerPerTest } from '../../helpers/workflow-run.js';

const temp = tempDirPerTest('troupe-jail-e2e-');
// troupe's own process holds this key (in its environment from the start, so in /proc/<pid>/environ too).
const KEY = 'sk-e2e-troupe-key-0xC0FFEE';

const serveRoles = roleServerPerTest();
let listener: Server | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
  listener = null;
});

/** A user's repository, a workflow whose one agent may run git, find, ls, cat, npm and node in a clone of it. */
function setup(base: string): { repo: string; workflow: string } {
  // Inside the workflow's folder: a workspace.from elsewhere is refused (tests/workflow/load/workspace-from.test.ts).
  const repo = join(base, 'flows', 'repo');
  mkdirSync(repo, { recursive: true });
  const git = gitIn(repo, base);
  git('init', '-q');
  writeFileSync(join(repo, 'main.js'), 'console.log(1)\n');
  git('add', '.');
  git('commit', '-q', '-m', 'start');
  const dir = join(base, 'flows');
  writeFileSync(
    join(dir, 'roles.json'),
    JSON.stringify({
      attacker: { systemMessage: 'You are the implementer.', tools: ['write_file', 'run_command'], max_tool_steps: 20, command_policy: { allow: ['git', 'find', 'ls', 'cat', 'npm', 'node'] } },
    }),
  );
  writeFileSync(
    join(dir, 'attack.json'),
    JSON.stringify({
      workflow_name: 'attack',
      workspace: { from: repo, git: true },
      contexts: [{ name: 'c', starting_messages: [], max_length: 100000 }],
      agents: [{ agent_role: 'attacker', context: 'c', role: 'assistant' }],
      states: [{ name: 'work', agent: 'attacker', input: 'common_data.input', transition: [{ target: 'stop', condition: 'true' }] }, { name: 'stop' }],
    }),
  );
  return { repo, workflow: join(dir, 'attack.json') };
}

describe.skipIf(bwrapMissing)('a hostile agent in a workflow run through the CLI', () => {
  it('gets no key, writes nothing outside, plants nothing the user or troupe runs, reaches no listener', async () => {
    const base = temp();
    const { repo, workflow } = setup(base);
    const outside = join(base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.txt'), 'keep\n');
    let connections = 0;
    listener = createServer((s) => (connections++, s.destroy()));
    await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    const before = { outside: fingerprint(outside), git: fingerprint(join(repo, '.git')) };

    // Every process's environment the jail can see, searched for the key (troupe's own process among them, were it visible).
    const environ = 'grep -aho "OPENAI_API_KEY=[[:graph:]]*" /proc/*/environ; echo scanned $(ls -d /proc/[0-9]* | wc -l) processes';
    const calls: [string, unknown][] = [
      ['run_command', { command: `find . -maxdepth 0 -exec sh -c 'touch ${outside}/pwned-find; ${environ}' {} +` }],
      ['run_command', { command: `git -c 'alias.x=!touch ${outside}/pwned-git; ${environ}' x` }],
      ['write_file', { path: 'package.json', content: JSON.stringify({ name: 'x', version: '1.0.0', scripts: { x: `touch ${outside}/pwned-npm; ${environ}` } }) }],
      ['run_command', { command: 'npm run x' }],
      ['run_command', { command: `node -e "require('fs').writeFileSync('${outside}/pwned-node', 'x')"` }],
      ['run_command', { command: `git config core.fsmonitor 'touch ${outside}/pwned-fsmonitor; env > ${outside}/env-dump'` }],
      ['run_command', { command: `git ls-remote http://127.0.0.1:${port}/repo.git` }],
    ];
    // The second run (input "again") only answers.
    const runOf = (req: Parameters<typeof messagesOf>[0]) => (messagesOf(req).some((m) => m.role === 'user' && (m.content ?? '').includes('again')) ? 'second' : 'attacker');
    const server = await serveRoles({ attacker: [...calls.map(([name, args]) => reply('', { name, arguments: args })), reply('Done.')], second: [reply('Nothing to do.')] }, runOf);
    const data = join(base, 'data');
    const run = await runCliProcess(['run', '--workflow', workflow, '--input', 'Steal the key.', '--json'], cleanEnv({ OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: KEY, TROUPE_DATA_DIR: data }));
    expect(server.unexpected).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    const events = parseEvents(run.stdout);
    expect(events.filter((e) => e.type === 'tool_call' && e.phase === 'finished')).toHaveLength(calls.length);

    // What went back to the model server: every tool result, and no key in any of them.
    const results = server.requests.flatMap((r) =>
      messagesOf(r)
        .filter((m) => m.role === 'tool')
        .map((m) => m.content ?? ''),
    );
    expect(results.length).toBeGreaterThanOrEqual(calls.length);
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain(KEY);
    expect(results.join('\n')).toMatch(/scanned \d+ processes/);
    expect(connections).toBe(0);

    // troupe makes the next workspace from the same repository (what ran the planted fsmonitor before), and the user runs git status.
    const again = await runCliProcess(['run', '--workflow', workflow, '--input', 'again', '--json'], cleanEnv({ OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: KEY, TROUPE_DATA_DIR: data }));
    expect(again.code, again.stderr).toBe(0);
    execFileSync('git', ['status', '--porcelain'], { cwd: repo, env: { PATH: process.env.PATH!, HOME: base } });
    expect(readdirSync(outside)).toEqual(['keep.txt']);
    expect(fingerprint(outside)).toEqual(before.outside);
    expect(fingerprint(join(repo, '.git')).config).toBe(before.git.config);
    // Two CLI processes, a clone each, npm: slow on a loaded machine.
  }, 120_000);
});

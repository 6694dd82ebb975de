import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { repositoryOf } from '../../src/tools/git-clone.js';
import { createToolset } from '../../src/tools/toolset.js';
import { createWorkspace } from '../../src/tools/workspace.js';
import { bwrapMissing } from '../helpers/jail.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// probe16: a workspace's `.git` is the agents' (its config, its hooks), and a command like `git commit` runs in the
// jail what they planted there: hooks, core.fsmonitor, core.sshCommand, diff.external, filters, aliases, the pager. Each runs inside
// the jail, as the command does: with the jail's environment (never troupe's: no API key), the workspace the only
// place it may write. And troupe's own git on that workspace runs none of it (see git-run.ts).

const temp = tempDirPerTest('troupe-jail-git-');
const KEY = 'sk-jail-git-must-never-see-this';

let base: string;
beforeEach(() => {
  base = temp();
  vi.stubEnv('OPENAI_API_KEY', KEY);
  vi.stubEnv('GIT_CONFIG_PARAMETERS', "'core.hooksPath'='/nonexistent'");
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A repository of the user's with one commit, and the workspace cloned from its subdirectory `src`. */
async function clonedWorkspace() {
  const repo = join(base, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(join(repo, 'src', 'a.txt'), 'a\n');
  git('add', '.');
  git('commit', '-q', '-m', 'start');
  return createWorkspace({ root: join(base, 'session'), name: 'w', from: join(repo, 'src'), git: true });
}

describe.skipIf(bwrapMissing)("the agents' git config runs only inside the jail", () => {
  it('hooks, fsmonitor, diff.external, filters, aliases and the pager an agent planted run in the jail: no key, no write outside', async () => {
    const made = await clonedWorkspace();
    const outside = join(base, 'outside');
    mkdirSync(outside);
    const tools = createToolset({ workspace: made.dir, top: made.home, commands: { mode: 'allow', allow: ['git', 'sh'] } });
    const cmd = async (command: string) => (await tools.run({ name: 'run_command', arguments: JSON.stringify({ command }) })).content;
    // What an agent writes with write_file and its own commands: executors in the clone's .git (config and hooks)
    // that record where they ran and try to reach out of the jail.
    const log = join(made.home, '.git', 'ran.log');
    const executor = (name: string) => {
      const path = join(made.home, '.git', `x-${name}`);
      writeFileSync(
        path,
        `#!/bin/sh\n{ echo "${name} ran"; env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; } >> "${log}"\n` +
          `echo escaped > "${join(outside, name)}" 2>/dev/null\n` +
          `${name.startsWith('filter') || name === 'pager' ? 'cat\n' : 'true\n'}`,
      );
      chmodSync(path, 0o755);
      return path;
    };
    const planted: [string, string][] = [
      ['core.fsmonitor', executor('fsmonitor')],
      ['core.pager', executor('pager')],
      ['diff.external', executor('diff-external')],
      ['filter.evil.clean', executor('filter-clean')],
      ['alias.st', `!${executor('alias')}`],
      ['core.sshCommand', executor('ssh-command')],
      ['core.hooksPath', join(made.home, '.git', 'own-hooks')],
    ];
    mkdirSync(join(made.home, '.git', 'own-hooks'));
    for (const hook of ['pre-commit', 'post-commit', 'post-index-change']) {
      writeFileSync(join(made.home, '.git', 'own-hooks', hook), `#!/bin/sh\n"${executor(`hook-${hook}`)}"\n`, { mode: 0o755 });
    }
    for (const [key, value] of planted) execFileSync('git', ['config', '--file', join(made.home, '.git', 'config'), key, value]);
    writeFileSync(join(made.dir, '.gitattributes'), '* filter=evil\n');
    writeFileSync(join(made.dir, 'b.txt'), 'b\n');
    // The agent's commands: each git command runs what it plants.
    expect(await cmd('git add -A')).toMatch(/^exit code 0/);
    expect(await cmd('git -c user.name=a -c user.email=a@example.com commit -q -m two')).toMatch(/^exit code 0/);
    expect(await cmd('sh -c "echo c >> b.txt"')).toMatch(/^exit code 0/);
    expect(await cmd('git -p diff')).toMatch(/^exit code 0/);
    expect(await cmd('git st')).toMatch(/^exit code 0/);
    // The ssh program runs (in the jail), and its remote is not reached: the jail has no network.
    expect(await cmd('git fetch -q ssh://example.com/repo.git')).toMatch(/^exit code [1-9]/);
    const ran = readFileSync(log, 'utf8');
    // The pager is not among them: git pages only to a terminal, and a command's output is a pipe.
    for (const name of ['fsmonitor', 'diff-external', 'filter-clean', 'alias', 'ssh-command', 'hook-pre-commit', 'hook-post-commit']) expect(ran, name).toContain(`${name} ran`);
    // Inside: the jail's environment only, the API key nowhere (not in theirs, nor in any process they can see).
    expect(ran).not.toContain(KEY);
    expect(ran).not.toContain('OPENAI_API_KEY');
    // troupe's GIT_* stay out too (its own GIT_CONFIG_PARAMETERS; the agent's `-c` makes one of theirs).
    expect(ran).not.toContain('/nonexistent');
    expect(ran).toContain(`HOME=${made.dir}`);
    // Nothing written outside the workspace (the folder beside it is not even there for them).
    expect(readdirSync(outside)).toEqual([]);
    // troupe's own git on the workspace (finding its repository, as a later workspace.from of it would) runs none of it.
    const before = readFileSync(log, 'utf8');
    expect(await repositoryOf(made.dir)).toEqual({ top: made.home, prefix: 'src/' });
    expect(readFileSync(log, 'utf8')).toBe(before);
  });
});

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fingerprint } from '../helpers/fingerprint.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { gitArgs, gitEnv } from '../../src/tools/git-run.js';
import { removeWorktree, repositoryOf } from '../../src/tools/git-clone.js';
import { createWorkspace, removeWorkspace } from '../../src/tools/workspace.js';

const temp = tempDirPerTest('troupe-git-');
const KEY = 'sk-git-must-never-see-this';
const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

let base: string;
let marker: string;
let seen: string;

/** A program that records that it ran (its name and environment) in the marker file; a filter passes its input on. */
function executor(name: string): string {
  const path = join(base, 'bin', name);
  writeFileSync(path, `#!/bin/sh\necho "${name} ran: $*" >> "${marker}"\nenv >> "${marker}"\n${name.startsWith('filter-') || name === 'textconv' ? 'cat\n' : ''}`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * A repository with every executor git takes from config planted in it: in its own config, in the global
 * config HOME and XDG_CONFIG_HOME point at, in GIT_* variables of troupe's environment, in hooks and in
 * .gitattributes (a filter on every file).
 */
function hostileRepository(): string {
  const repo = join(base, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  const git = (...args: string[]) =>
    execFileSync(REAL_GIT, ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', '-c', 'core.hooksPath=/dev/null', ...args], {
      cwd: repo,
      stdio: 'ignore',
      env: { PATH: process.env.PATH!, HOME: join(base, 'home') },
    });
  git('init', '-q');
  writeFileSync(join(repo, 'src', 'a.txt'), 'a\n');
  writeFileSync(join(repo, '.gitattributes'), '* filter=evil diff=evil merge=evil\n');
  git('add', '.');
  git('commit', '-q', '-m', 'start');
  const planted: [string, string][] = [
    ['core.fsmonitor', executor('fsmonitor')],
    ['core.sshCommand', executor('ssh-command')],
    ['core.pager', executor('pager')],
    ['core.editor', executor('editor')],
    ['core.askPass', executor('askpass')],
    ['core.gitProxy', executor('git-proxy')],
    ['core.alternateRefsCommand', executor('alternate-refs')],
    ['diff.external', executor('diff-external')],
    ['diff.evil.textconv', executor('textconv')],
    ['merge.evil.driver', executor('merge-driver')],
    ['filter.evil.clean', executor('filter-clean')],
    ['filter.evil.smudge', executor('filter-smudge')],
    ['credential.helper', `!${executor('credential')}`],
    ['gpg.program', executor('gpg')],
    ['sequence.editor', executor('sequence-editor')],
    ['uploadpack.packObjectsHook', executor('pack-objects-hook')],
    ['alias.rev-parse', `!${executor('alias-rev-parse')}`],
    ['alias.x', `!${executor('alias-x')}`],
    ['gc.auto', '1'],
  ];
  for (const [key, value] of planted) git('config', key, value);
  for (const hook of ['post-checkout', 'post-index-change', 'reference-transaction', 'pre-auto-gc', 'post-merge', 'fsmonitor-watchman']) {
    writeFileSync(join(repo, '.git', 'hooks', hook), `#!/bin/sh\n"${executor(`hook-${hook}`)}"\n`);
    chmodSync(join(repo, '.git', 'hooks', hook), 0o755);
  }
  // The same executors in the "global" config troupe's HOME and XDG_CONFIG_HOME lead to, and a template directory with hooks.
  mkdirSync(join(base, 'home', '.config', 'git'), { recursive: true });
  mkdirSync(join(base, 'templates', 'hooks'), { recursive: true });
  writeFileSync(join(base, 'templates', 'hooks', 'post-checkout'), `#!/bin/sh\n"${executor('template-hook')}"\n`, { mode: 0o755 });
  for (const file of [join(base, 'home', '.gitconfig'), join(base, 'home', '.config', 'git', 'config')]) {
    for (const [key, value] of [...planted, ['init.templateDir', join(base, 'templates')]]) execFileSync(REAL_GIT, ['config', '--file', file, key!, value!]);
  }
  writeFileSync(join(base, 'home', '.config', 'git', 'attributes'), '* filter=evil\n');
  return repo;
}

beforeEach(() => {
  base = temp();
  marker = join(base, 'outside', 'ran.log');
  seen = join(base, 'outside', 'git-env.log');
  mkdirSync(join(base, 'outside'));
  mkdirSync(join(base, 'bin'));
  // A git on troupe's PATH that records the environment it was given, then runs the real one.
  mkdirSync(join(base, 'wrapper'));
  writeFileSync(join(base, 'wrapper', 'git'), `#!/bin/sh\nenv >> "${seen}"\nexec "${REAL_GIT}" "$@"\n`, { mode: 0o755 });
  vi.stubEnv('PATH', `${join(base, 'wrapper')}:${process.env.PATH}`);
  vi.stubEnv('HOME', join(base, 'home'));
  vi.stubEnv('XDG_CONFIG_HOME', join(base, 'home', '.config'));
  vi.stubEnv('OPENAI_API_KEY', KEY);
  vi.stubEnv('GIT_SSH_COMMAND', executor('env-ssh-command'));
  vi.stubEnv('GIT_EXTERNAL_DIFF', executor('env-external-diff'));
  vi.stubEnv('GIT_PAGER', executor('env-pager'));
  vi.stubEnv('GIT_ASKPASS', executor('env-askpass'));
  vi.stubEnv('GIT_CONFIG_PARAMETERS', `'core.fsmonitor'='${executor('env-config-parameters')}'`);
  vi.stubEnv('GIT_DIR', join(base, 'elsewhere'));
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("troupe's own git on a hostile repository", () => {
  it('runs none of the executors planted in config, hooks, attributes or the environment, and git never sees the key', async () => {
    const repo = hostileRepository();
    const before = fingerprint(repo);
    // What troupe does with a repository: find it, clone it for a workspace, remove the workspace.
    expect(await repositoryOf(join(repo, 'src'))).toEqual({ top: repo, prefix: 'src/' });
    const ws = await createWorkspace({ root: join(base, 'session'), name: 'agent1', from: join(repo, 'src'), git: true });
    expect(readFileSync(join(ws.dir, 'a.txt'), 'utf8')).toBe('a\n');
    await removeWorkspace(ws);
    await removeWorktree(repo, join(base, 'not-a-worktree'));

    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : 'nothing ran').toBe('nothing ran');
    expect(fingerprint(repo)).toEqual(before);
    // The wrapper saw every git troupe started (and the upload-pack git started for the clone).
    const env = readFileSync(seen, 'utf8');
    expect(env).toContain('GIT_CONFIG_GLOBAL=/dev/null');
    expect(env).not.toContain(KEY);
    expect(env).not.toContain('OPENAI');
    expect(env).not.toContain(join(base, 'home'));
    expect(env).not.toMatch(/GIT_(SSH_COMMAND|EXTERNAL_DIFF|PAGER|ASKPASS|DIR)=/);
  });

  it('the same executors do run for a git without these settings (the planting works)', () => {
    const repo = hostileRepository();
    vi.unstubAllEnvs();
    // `git status` as a user would run it in that repository: the planted fsmonitor runs.
    execFileSync(REAL_GIT, ['status', '--porcelain'], { cwd: repo, env: { PATH: process.env.PATH!, HOME: join(base, 'home') }, stdio: 'ignore' });
    expect(readFileSync(marker, 'utf8')).toMatch(/^fsmonitor ran/m);
    // A clone with the user's global config: its smudge filter and its template's hook run.
    execFileSync(REAL_GIT, ['clone', '-q', repo, join(base, 'plain-clone')], { env: { PATH: process.env.PATH!, HOME: join(base, 'home') }, stdio: 'ignore' });
    expect(readFileSync(marker, 'utf8')).toMatch(/^filter-smudge ran/m);
    expect(readFileSync(marker, 'utf8')).toMatch(/^template-hook ran/m);
  });

  it('the environment and flags: no key, no inherited GIT_*, system and global config off, every protocol but file refused', () => {
    const env = gitEnv('/usr/bin/git');
    expect(Object.keys(env).sort()).toEqual([
      'GIT_ATTR_NOSYSTEM',
      'GIT_CONFIG_GLOBAL',
      'GIT_CONFIG_NOSYSTEM',
      'GIT_CONFIG_SYSTEM',
      'GIT_OPTIONAL_LOCKS',
      'GIT_PROTOCOL_FROM_USER',
      'GIT_TERMINAL_PROMPT',
      'HOME',
      'LANG',
      'LC_ALL',
      'PATH',
      'XDG_CONFIG_HOME',
    ]);
    const args = gitArgs(['status']).join(' ');
    for (const setting of ['core.fsmonitor=false', 'core.hooksPath=/dev/null', 'protocol.allow=never', 'protocol.file.allow=always', 'credential.helper=', 'core.attributesFile=/dev/null'])
      expect(args).toContain(`-c ${setting}`);
    expect(args.endsWith(' status')).toBe(true);
  });
});

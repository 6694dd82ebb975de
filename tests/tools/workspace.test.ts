import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { changesSince, createWorkspace, openWorkspace, removeWorkspace } from '../../src/tools/workspace.js';
import { createToolset } from '../../src/tools/toolset.js';

const temp = tempDirPerTest('troupe-ws-');

const hasGit = (() => {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

function project(): string {
  const from = join(temp(), 'project');
  mkdirSync(join(from, 'src'), { recursive: true });
  mkdirSync(join(from, '.git'));
  writeFileSync(join(from, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(from, 'README.md'), '# Bech32\n\nA from-scratch implementation.\n');
  writeFileSync(join(from, 'src', 'bech32.zig'), 'const std = @import("std");\n\npub fn encode() void {}\n');
  symlinkSync('README.md', join(from, 'readme-link'));
  return from;
}

describe('workspaces', () => {
  it('a copy of the starting directory (without .git), with added, modified and deleted files diffed', async () => {
    const root = temp();
    const ws = await createWorkspace({ root, name: 'agent1', from: project() });
    expect(ws).toMatchObject({ kind: 'copy', name: 'agent1', dir: join(root, 'workspaces', 'agent1') });
    expect(existsSync(join(ws.dir, '.git'))).toBe(false);
    expect(lstatSync(join(ws.dir, 'readme-link')).isSymbolicLink()).toBe(true);
    expect(Object.keys(ws.baseline.files)).toEqual(['README.md', 'readme-link', 'src/bech32.zig']);
    expect(await changesSince(ws)).toEqual({ files: [], diff: '' });

    const tools = createToolset({ workspace: ws.dir });
    await tools.run({ name: 'edit_file', arguments: JSON.stringify({ path: 'src/bech32.zig', old_text: 'pub fn encode() void {}', new_text: 'pub fn encode() !void {\n    return;\n}' }) });
    await tools.run({ name: 'write_file', arguments: JSON.stringify({ path: 'flake.nix', content: '{ }\n' }) });
    unlinkSync(join(ws.dir, 'README.md'));

    const changes = await changesSince(ws);
    expect(changes.files).toEqual([
      { path: 'README.md', status: 'deleted' },
      { path: 'flake.nix', status: 'added' },
      { path: 'src/bech32.zig', status: 'modified' },
    ]);
    expect(changes.diff).toBe(
      [
        '--- a/README.md',
        '+++ /dev/null',
        '@@ -1,3 +0,0 @@',
        '-# Bech32',
        '-',
        '-A from-scratch implementation.',
        '--- /dev/null',
        '+++ b/flake.nix',
        '@@ -0,0 +1,1 @@',
        '+{ }',
        '--- a/src/bech32.zig',
        '+++ b/src/bech32.zig',
        '@@ -1,3 +1,5 @@',
        ' const std = @import("std");',
        ' ',
        '-pub fn encode() void {}',
        '+pub fn encode() !void {',
        '+    return;',
        '+}',
        '',
      ].join('\n'),
    );
  });

  it('an empty workspace; binary changes are named, not shown; the diff is capped', async () => {
    const root = temp();
    const ws = await createWorkspace({ root, name: 'impl-2' });
    expect(ws.kind).toBe('empty');
    writeFileSync(join(ws.dir, 'logo.png'), Buffer.from([0x89, 0, 1, 2]));
    writeFileSync(join(ws.dir, 'big.txt'), 'line\n'.repeat(500));
    const changes = await changesSince(ws, { maxChars: 300 });
    expect(changes.files).toEqual([
      { path: 'big.txt', status: 'added' },
      { path: 'logo.png', status: 'added' },
    ]);
    expect(changes.diff).toBe('[diff truncated at 300 characters; not shown: added big.txt, added logo.png]\n');
    expect((await changesSince(ws)).diff).toMatch(/\nBinary or large file logo.png added \(not shown\)\n$/);
  });

  it('is reopened from its record with its baseline, refuses a second create, and is removed', async () => {
    const root = temp();
    const from = project();
    const ws = await createWorkspace({ root, name: 'agent1', from });
    writeFileSync(join(ws.dir, 'README.md'), 'changed\n');
    const again = await openWorkspace({ root, name: 'agent1' });
    expect(again).toEqual(ws);
    expect((await changesSince(again!)).files).toEqual([{ path: 'README.md', status: 'modified' }]);
    await expect(createWorkspace({ root, name: 'agent1', from })).rejects.toThrow('workspace "agent1" already exists');
    await removeWorkspace(ws);
    expect(existsSync(ws.dir)).toBe(false);
    expect(await openWorkspace({ root, name: 'agent1' })).toBeNull();
    expect(readFileSync(join(from, 'README.md'), 'utf8')).toMatch(/^# Bech32/);
  });

  it('refuses names that are not plain directory names and starting points that are not directories', async () => {
    const root = temp();
    await expect(createWorkspace({ root, name: '../escape' })).rejects.toThrow('workspace name "../escape" is not usable');
    await expect(createWorkspace({ root, name: 'a/b' })).rejects.toThrow('is not usable');
    await expect(createWorkspace({ root, name: 'x', from: join(root, 'missing') })).rejects.toThrow('does not exist or is not a directory');
  });

  it('a session directory inside the starting directory is not copied into the workspace', async () => {
    const from = project();
    const root = join(from, '.troupe', 'sessions', 's1');
    const ws = await createWorkspace({ root, name: 'agent1', from });
    const second = await createWorkspace({ root, name: 'agent2', from });
    expect(existsSync(join(ws.dir, '.troupe', 'sessions', 's1', 'workspaces'))).toBe(false);
    expect(Object.keys(second.baseline.files).some((p) => p.includes('workspaces'))).toBe(false);
  });

  describe.skipIf(!hasGit)('git workspaces', () => {
    function repo(): string {
      const dir = project();
      rmSync(join(dir, '.git'), { recursive: true });
      const run = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: dir, stdio: 'ignore' });
      run('init', '-q');
      run('add', '.');
      run('commit', '-q', '-m', 'start');
      writeFileSync(join(dir, 'uncommitted.txt'), 'not in the clone\n');
      return dir;
    }

    it("a clone of HEAD with a repository of its own (no worktree of the user's), diffed against its baseline and removed", async () => {
      const from = repo();
      const root = temp();
      const ws = await createWorkspace({ root, name: 'agent1', from, git: true });
      expect(ws).toMatchObject({ kind: 'git', repo: from, clone: true });
      expect(lstatSync(join(ws.dir, '.git')).isDirectory()).toBe(true);
      expect(existsSync(join(ws.dir, 'uncommitted.txt'))).toBe(false);
      expect(Object.keys(ws.baseline.files)).toEqual(['README.md', 'readme-link', 'src/bech32.zig']);
      // Nothing of the user's repository is shared: no worktree registered there, no alternates, no hardlinked objects.
      const list = () => execFileSync('git', ['worktree', 'list'], { cwd: from, encoding: 'utf8' });
      expect(list()).not.toContain(ws.home);
      expect(existsSync(join(ws.dir, '.git', 'objects', 'info', 'alternates'))).toBe(false);
      const linked = execFileSync('find', [join(ws.dir, '.git'), '-type', 'f', '-links', '+1'], { encoding: 'utf8' });
      expect(linked).toBe('');
      expect(execFileSync('git', ['log', '--format=%s'], { cwd: ws.dir, encoding: 'utf8' })).toBe('start\n');
      writeFileSync(join(ws.dir, 'src', 'bech32.zig'), 'changed\n');
      expect((await changesSince(ws)).files).toEqual([{ path: 'src/bech32.zig', status: 'modified' }]);
      await removeWorkspace(ws);
      expect(existsSync(ws.home)).toBe(false);
      expect(execFileSync('git', ['status', '--porcelain'], { cwd: from, encoding: 'utf8' })).toBe('?? uncommitted.txt\n');
    });

    it('starting from a subdirectory works in that subdirectory of the clone', async () => {
      const from = repo();
      const ws = await createWorkspace({ root: temp(), name: 'sub', from: join(from, 'src'), git: true });
      expect(ws.dir).toBe(join(ws.home, 'src'));
      expect(Object.keys(ws.baseline.files)).toEqual(['bech32.zig']);
      await removeWorkspace(ws);
    });

    it('a worktree recorded by an earlier version is still removed through git', async () => {
      const from = repo();
      const root = temp();
      const home = join(root, 'workspaces', 'old');
      mkdirSync(join(root, 'workspaces'), { recursive: true });
      execFileSync('git', ['worktree', 'add', '--detach', home, 'HEAD'], { cwd: from, stdio: 'ignore' });
      writeFileSync(join(root, 'workspaces', 'old.json'), JSON.stringify({ version: 1, name: 'old', kind: 'git', dir: home, home, repo: from, from, baseline: { files: {}, truncated: false } }));
      const ws = await openWorkspace({ root, name: 'old' });
      expect(ws).toMatchObject({ kind: 'git', repo: from });
      await removeWorkspace(ws!);
      expect(existsSync(home)).toBe(false);
      expect(execFileSync('git', ['worktree', 'list'], { cwd: from, encoding: 'utf8' })).not.toContain(home);
    });

    it('without a repository, git: true falls back to a copy', async () => {
      const from = join(temp(), 'plain');
      mkdirSync(from);
      writeFileSync(join(from, 'a.txt'), 'a');
      expect((await createWorkspace({ root: temp(), name: 'x', from, git: true })).kind).toBe('copy');
    });
  });
});

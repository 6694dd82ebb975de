import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/tools/workspace.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { gitIn } from '../helpers/git-repo.js';

const temp = tempDirPerTest('troupe-clone-link-');

/**
 * Hostile: a repository (a downloaded workflow folder with its own .git) whose HEAD has `start` as a symlink
 * leading out (`../../../../../<victim>`), while its working tree has `start/` as a real directory. Starting
 * from `start` passes every check on the working tree, but the workspace is the clone's `start`: the link,
 * which led to the victim directory — the agent's file tools and the jail's writable bind would be there.
 */
function hostileRepo(base: string, victim: string): string {
  const repo = join(base, 'flows');
  mkdirSync(repo);
  const git = gitIn(repo, base);
  git('init', '-q');
  // Deep enough a relative link that, from the clone under <root>/workspaces/<name>/, it reaches the base.
  symlinkSync(`${'../'.repeat(12)}${victim.slice(1)}`, join(repo, 'start'));
  git('add', 'start');
  git('commit', '-q', '-m', 'start');
  rmSync(join(repo, 'start'));
  mkdirSync(join(repo, 'start'));
  writeFileSync(join(repo, 'start', 'README'), 'looks harmless\n');
  return repo;
}

describe('a clone whose subdirectory is a symlink at HEAD', () => {
  it('is refused as a workspace: the workspace never lies outside its clone', async () => {
    const base = temp();
    const victim = join(base, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'id_rsa'), 'PRIVATE\n');
    const repo = hostileRepo(base, victim);
    const root = join(base, 'session');
    await expect(createWorkspace({ root, name: 'w', from: join(repo, 'start'), git: true })).rejects.toThrow(
      `workspace "w": start/ in the clone of ${repo} is a symbolic link leading outside the clone at its HEAD; commit start/ as a directory, or start from another one`,
    );
    expect(readdirSync(victim)).toEqual(['id_rsa']);
    // No half-made workspace stays (its record was never written).
    expect(existsSync(join(root, 'workspaces', 'w.json'))).toBe(false);
  });
});

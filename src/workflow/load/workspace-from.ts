import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { ConfigIssue } from '../../config/issues.js';
import { isInside } from '../../config/safe-read.js';

const real = (path: string): string | null => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/** The nearest `.git` entry at or above `dir` (a directory, a `gitdir:` file or a link), or null outside any repository. */
function nearestDotGit(dir: string): string | null {
  for (let at = dir; ; at = dirname(at)) {
    const entry = join(at, '.git');
    if (lstatSync(entry, { throwIfNoEntry: false })) return entry;
    if (dirname(at) === at) return null;
  }
}

/** Where a `.git` entry keeps the repository: its git directory (a file's `gitdir:`, a link's target) and that directory's `commondir`. */
function repositoryDirs(dotGit: string): string[] {
  let gitDir: string | null = dotGit;
  if (lstatSync(dotGit).isFile()) {
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8').slice(0, 4096))?.[1];
    gitDir = named === undefined ? null : resolve(dirname(dotGit), named);
  }
  const dirs = [gitDir === null ? dotGit : (real(gitDir) ?? gitDir)];
  const common =
    gitDir === null
      ? undefined
      : (() => {
          try {
            return readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
          } catch {
            return undefined;
          }
        })();
  if (common && gitDir !== null) dirs.push(real(resolve(gitDir, common)) ?? resolve(gitDir, common));
  return dirs;
}

/**
 * The problem with a workflow's `workspace.from`, or null: it must lie (symlinks followed) inside the
 * directory troupe runs in or the folder holding the workflow's file. A workflow's own files are read only
 * inside its folder; without this, one naming `/home/me/.ssh` would have it copied into a workspace its
 * agents read. With `git`, the workspace is a clone of the repository there, which is wherever its `.git`
 * says: unless that `.git` is the user's own (at or above the directory troupe runs in, as a worktree's, and
 * not in the workflow's folder: one shipped there is checked from any directory, the folder itself included),
 * its git directory must lie inside those directories too. A directory that does not exist is left to the
 * workspace's own error when it is made. Nor may it hold the user's home directory (`home`, default the process's):
 * troupe run from home would have a workflow naming "." copy every key and token there (~/.config, ~/.kube, the
 * seal key) into each agent's workspace, past what the copy leaves out by name (secret-files.ts).
 */
export function workspaceFromIssue(from: string, options: { cwd: string; file: string; shown: string; git?: boolean; home?: string }): ConfigIssue | null {
  const wanted = real(resolve(options.cwd, from));
  if (wanted === null) return null;
  const cwd = real(options.cwd);
  const folder = real(dirname(options.file));
  const allowed = [cwd, folder].filter((d): d is string => d !== null);
  const where = `the directory troupe runs in (${options.cwd}) and the workflow's folder`;
  const issue = (problem: string): ConfigIssue => ({
    file: options.shown,
    field: 'workspace.from',
    problem,
    fix: 'name a directory inside one of them (run troupe from the project the agents should start from)',
  });
  if (!allowed.some((dir) => isInside(dir, wanted))) return issue(`"${from}" is ${wanted}, outside ${where}`);
  const home = real(options.home ?? homedir());
  if (home !== null && home !== '/' && isInside(wanted, home)) {
    return {
      ...issue(`"${from}" is ${wanted}, which holds your home directory ${home}: its keys and tokens (~/.config, ~/.kube, troupe's seal key) would be copied into every agent's workspace`),
      fix: 'name the project directory the agents should start from, and run troupe there',
    };
  }
  if (!options.git) return null;
  const dotGit = nearestDotGit(wanted);
  if (dotGit === null) return null;
  // The user's own: at or above where troupe runs, unless it came with the workflow (in its folder), as when troupe runs inside that folder.
  const shipped = folder !== null && isInside(folder, dotGit);
  if (!shipped && cwd !== null && isInside(dirname(dotGit), cwd)) return null;
  const outside = repositoryDirs(dotGit).find((dir) => !allowed.some((a) => isInside(a, dir)));
  return outside === undefined ? null : issue(`"${from}" is in a repository kept at ${outside} (its .git says so), outside ${where}`);
}

import { git } from './git-run.js';

/** Where a directory is in its git repository: the repository's top directory and the path from there (`""` at the top, else ending in `/`). */
export interface RepositoryPlace {
  top: string;
  prefix: string;
}

/** The git repository holding `dir` (its top and `dir`'s path inside it), or null when it is not in one (or git is missing). */
export async function repositoryOf(dir: string): Promise<RepositoryPlace | null> {
  try {
    const [top, prefix = ''] = (await git(dir, ['rev-parse', '--show-toplevel', '--show-prefix'])).split('\n');
    return top ? { top, prefix } : null;
  } catch {
    return null;
  }
}

/**
 * Makes `path` a clone of the repository at `top`, checked out at its HEAD (uncommitted changes are not
 * in it). A clone, not a worktree, because a worktree shares its repository's config, hooks and refs: an
 * agent's `git config core.fsmonitor …` in a worktree writes the user's own `.git/config`, which the
 * user's next `git status` (and troupe's next git call) runs. `--no-local` copies objects through git's
 * pack protocol, so the clone shares no files with the user's repository: no hardlinks an agent could
 * write through, no alternates pointing outside the workspace. Its config is new, so no filter or
 * executor the source repository's config names comes along.
 */
export async function cloneRepository(top: string, path: string): Promise<void> {
  // cwd "/": git must not pick up a repository around the current directory.
  await git('/', ['clone', '--quiet', '--no-local', '--no-hardlinks', '--', top, path], { timeoutMs: 600_000 });
}

/** Removes a worktree made by an earlier troupe (workspaces were worktrees then) and prunes the repository's record of it. */
export async function removeWorktree(repo: string, path: string): Promise<void> {
  await git(repo, ['worktree', 'remove', '--force', path]).catch(() => undefined);
  await git(repo, ['worktree', 'prune']).catch(() => undefined);
}

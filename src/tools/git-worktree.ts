import { execFile } from 'node:child_process';

/** The environment git runs with: the parent's, minus GIT_* variables that would point it at another repository. */
function gitEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_')));
}

/** Runs git (no shell, hooks off) and resolves its trimmed stdout; rejects with git's stderr. */
export function git(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // Hooks off: creating a workspace must not run the repository's post-checkout scripts.
    execFile('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd, env: gitEnv(), maxBuffer: 16_000_000, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args[0]} failed: ${(stderr || error.message).trim().split('\n')[0]}`));
      else resolve(stdout.trim());
    });
  });
}

/** The top directory of the git repository holding `dir`, or null when it is not in one (or git is missing). */
export async function repositoryOf(dir: string): Promise<string | null> {
  try {
    return await git(dir, ['rev-parse', '--show-toplevel']);
  } catch {
    return null;
  }
}

/** Adds a detached worktree of the repository's HEAD at `path`. */
export async function addWorktree(repo: string, path: string): Promise<void> {
  // A worktree whose making was cut off is still registered: pruning lets it be made again at its path.
  await git(repo, ['worktree', 'prune']).catch(() => undefined);
  await git(repo, ['worktree', 'add', '--detach', path, 'HEAD']);
}

/** Removes a worktree (its files too) and prunes the repository's record of it. */
export async function removeWorktree(repo: string, path: string): Promise<void> {
  await git(repo, ['worktree', 'remove', '--force', path]).catch(() => undefined);
  await git(repo, ['worktree', 'prune']).catch(() => undefined);
}

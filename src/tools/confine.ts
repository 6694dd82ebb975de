import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from './tool.js';

/** A path inside the workspace: where it really is (symlinks resolved), and how the model names it. */
export interface ConfinedPath {
  /** The real absolute path (every existing symlink along it resolved and checked). */
  real: string;
  /** Relative to the workspace root, with `/` separators ("." for the root itself). */
  shown: string;
  /** Whether something exists there now. */
  exists: boolean;
}

/** True when `path` is `root` or below it. */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** A path relative to the root with `/` separators, "." for the root. */
export function shownPath(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code;

/**
 * Resolves a path the model gave against the workspace `root` (itself a real path) and refuses
 * anything that leaves it: `..`, absolute paths elsewhere, and symlinks anywhere along the path
 * (the last part included) whose target is outside. The deepest part that exists is resolved with
 * realpath, so a symlinked parent directory is followed to where it really points before the check;
 * what does not exist yet cannot be a symlink. Callers then walk the resolved path one directory at a
 * time by descriptor, never through a link (pinned-dir.ts, safe-fs.ts), so a swap after this check is refused.
 */
export async function confine(root: string, input: string): Promise<ConfinedPath> {
  if (typeof input !== 'string' || input.trim() === '') throw new ToolError('the path is empty; give a path relative to the workspace');
  if (input.includes('\0')) throw new ToolError('the path contains a NUL byte');
  const wanted = resolve(root, input);
  if (!isInside(root, wanted)) {
    throw new ToolError(`"${input}" is outside the workspace${isAbsolute(input) ? ' (absolute paths must be inside the workspace)' : ''}; use a path relative to the workspace`);
  }
  let existing = wanted;
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch (error) {
      if (code(error) !== 'ENOENT' && code(error) !== 'ENOTDIR') throw new ToolError(`cannot look at "${input}": ${code(error) ?? String(error)}`);
      if (existing === root) throw new ToolError('the workspace directory is gone');
      existing = dirname(existing);
    }
  }
  let real: string;
  try {
    real = await realpath(existing);
  } catch (error) {
    const what = existing === wanted ? `"${input}"` : `"${shownPath(root, existing)}" (on the way to "${input}")`;
    if (code(error) === 'ENOENT') throw new ToolError(`${what} is a symbolic link whose target does not exist; refused`);
    if (code(error) === 'ELOOP') throw new ToolError(`${what} is a loop of symbolic links; refused`);
    throw new ToolError(`cannot resolve ${what}: ${code(error) ?? String(error)}`);
  }
  if (!isInside(root, real)) {
    const link = await firstLink(root, existing);
    const what = link === wanted ? `"${input}"` : `"${shownPath(root, link)}" (on the way to "${input}")`;
    throw new ToolError(`${what} is a symbolic link that leads outside the workspace; refused`);
  }
  const full = existing === wanted ? real : join(real, relative(existing, wanted));
  return { real: full, shown: shownPath(root, full), exists: existing === wanted };
}

/**
 * As confine, for a tool that reads or writes one file: a path ending in "/", "/." or "/.." names a directory,
 * which resolving would drop (so write_file "a.txt/" wrote the file a.txt): it is refused, never taken for the file.
 */
export async function confineFile(root: string, input: string): Promise<ConfinedPath> {
  const directory = typeof input === 'string' ? /\/\.{0,2}$/.exec(input) : null;
  if (directory) throw new ToolError(`"${input}" names a directory; give the path of a file, without the trailing "${directory[0]}"`);
  return confine(root, input);
}

/** The first symbolic link on the way from the root to `path` (`path` itself when none is found). */
async function firstLink(root: string, path: string): Promise<string> {
  let at = root;
  for (const part of relative(root, path).split(sep)) {
    at = join(at, part);
    if (
      await lstat(at).then(
        (s) => s.isSymbolicLink(),
        () => false,
      )
    )
      return at;
  }
  return path;
}

/** Refuses paths inside a `.git` directory (or the `.git` file of a worktree): tools do not change a repository's insides. */
export function refuseGitInternals(confined: ConfinedPath): void {
  if (confined.shown.split('/').includes('.git')) throw new ToolError(`"${confined.shown}" is inside .git; tools do not write there`);
}

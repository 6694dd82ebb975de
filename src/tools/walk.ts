import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** One entry found by a walk: its path relative to where the walk started (`/` separators) and its kind. */
export interface WalkEntry {
  path: string;
  /** The absolute path. */
  full: string;
  kind: 'file' | 'dir' | 'symlink' | 'other';
}

/** Names a walk leaves out (directories, files or links). */
export const SKIPPED_DIRS: readonly string[] = ['.git'];

/**
 * Walks a directory tree depth-first in sorted order without following symlinks (a symlink is
 * reported, never entered), skipping `.git`. A generator, so a caller that has enough simply stops.
 */
export async function* walk(dir: string, options: { maxDepth?: number; skip?: readonly string[] } = {}): AsyncGenerator<WalkEntry> {
  const skip = new Set(options.skip ?? SKIPPED_DIRS);
  const maxDepth = options.maxDepth ?? Infinity;
  async function* visit(full: string, prefix: string, depth: number): AsyncGenerator<WalkEntry> {
    let entries;
    try {
      entries = await readdir(full, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      const child = join(full, entry.name);
      // A worktree's .git is a file, so skipped names are skipped whatever they are.
      if (skip.has(entry.name)) continue;
      if (entry.isDirectory()) {
        yield { path, full: child, kind: 'dir' };
        if (depth + 1 < maxDepth) yield* visit(child, path, depth + 1);
      } else if (entry.isSymbolicLink()) {
        yield { path, full: child, kind: 'symlink' };
      } else {
        yield { path, full: child, kind: entry.isFile() ? 'file' : 'other' };
      }
    }
  }
  yield* visit(dir, '', 0);
}

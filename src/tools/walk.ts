import { readdir } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { openDirAt, type PinnedDir } from './pinned-dir.js';

/** One entry found by a walk: its path relative to where the walk started (`/` separators) and its kind. */
export interface WalkEntry {
  path: string;
  /** The absolute path (for messages; read the entry through `dir`). */
  full: string;
  kind: 'file' | 'dir' | 'symlink' | 'other';
  /** The open directory that holds it, valid until the walk moves on: read the entry through it (safe-fs.ts). */
  dir: PinnedDir;
  name: string;
}

/** Names a walk leaves out (directories, files or links). */
export const SKIPPED_DIRS: readonly string[] = ['.git'];

/** Where a walk starts and how far it goes. */
export interface WalkOptions {
  /** The directory to walk, relative to `root` (a path with no links, as confine resolves it); default the root. */
  from?: string;
  maxDepth?: number;
  skip?: readonly string[];
}

/**
 * Walks a directory tree below `root` depth-first in sorted order without following symlinks (a symlink is
 * reported, never entered), skipping `.git`. Each directory is opened by its descriptor through the
 * pinned walker, so a directory swapped for a link while the walk runs is not entered. A generator, so a
 * caller that has enough simply stops. A start that is not a directory is a ToolError.
 */
export async function* walk(root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const skip = new Set(options.skip ?? SKIPPED_DIRS);
  const maxDepth = options.maxDepth ?? Infinity;
  async function* visit(dir: PinnedDir, prefix: string, depth: number): AsyncGenerator<WalkEntry> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir.at(), { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      const found = { path, full: join(dir.path, entry.name), dir, name: entry.name };
      // A worktree's .git is a file, so skipped names are skipped whatever they are.
      if (skip.has(entry.name)) continue;
      if (entry.isDirectory()) {
        yield { ...found, kind: 'dir' };
        if (depth + 1 >= maxDepth) continue;
        // Changed since it was listed (a link now, or gone): not entered.
        const child = await dir.child(entry.name, dir.showOf(entry.name)).catch(() => null);
        if (!child) continue;
        try {
          yield* visit(child, path, depth + 1);
        } finally {
          await child.close();
        }
      } else if (entry.isSymbolicLink()) {
        yield { ...found, kind: 'symlink' };
      } else {
        yield { ...found, kind: entry.isFile() ? 'file' : 'other' };
      }
    }
  }
  const start = await openDirAt(root, options.from ?? '');
  try {
    yield* visit(start, '', 0);
  } finally {
    await start.close();
  }
}

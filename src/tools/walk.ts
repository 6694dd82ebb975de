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

/**
 * How deep a walk goes at most: a walk holds one open directory per level, and a command can make a tree
 * thousands of levels deep in one call (`mkdir -p`). No project's files lie this deep.
 */
export const MAX_WALK_DEPTH = 256;

/** Where a walk starts and how far it goes. */
export interface WalkOptions {
  /** The directory to walk, relative to `root` (a path with no links, as confine resolves it); default the root. */
  from?: string;
  maxDepth?: number;
  skip?: readonly string[];
  /** Told of each directory not entered because it lies deeper than MAX_WALK_DEPTH (its path, as entries are shown). */
  tooDeep?: (path: string) => void;
}

/** A directory being walked: its entries and how far through them the walk is. */
interface Level {
  dir: PinnedDir;
  prefix: string;
  depth: number;
  entries: Dirent[];
  at: number;
}

async function level(dir: PinnedDir, prefix: string, depth: number): Promise<Level> {
  const entries = await readdir(dir.at(), { withFileTypes: true }).catch(() => [] as Dirent[]);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { dir, prefix, depth, entries, at: 0 };
}

/**
 * Walks a directory tree below `root` depth-first in sorted order without following symlinks (a symlink is
 * reported, never entered), skipping `.git`, at most MAX_WALK_DEPTH levels down. Each directory is opened by
 * its descriptor through the pinned walker, so a directory swapped for a link while the walk runs is not
 * entered. A loop over an explicit stack, so no depth overflows the call stack; a generator, so a caller that
 * has enough simply stops. A start that is not a directory is a ToolError.
 */
export async function* walk(root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const skip = new Set(options.skip ?? SKIPPED_DIRS);
  const maxDepth = options.maxDepth ?? Infinity;
  const start = await openDirAt(root, options.from ?? '');
  const stack: Level[] = [];
  try {
    stack.push(await level(start, '', 0));
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.at >= top.entries.length) {
        stack.pop();
        if (top.dir !== start) await top.dir.close();
        continue;
      }
      const entry = top.entries[top.at++]!;
      // A worktree's .git is a file, so skipped names are skipped whatever they are.
      if (skip.has(entry.name)) continue;
      const path = top.prefix ? `${top.prefix}/${entry.name}` : entry.name;
      const found = { path, full: join(top.dir.path, entry.name), dir: top.dir, name: entry.name };
      if (entry.isDirectory()) {
        yield { ...found, kind: 'dir' };
        if (top.depth + 1 >= maxDepth) continue;
        if (top.depth + 1 >= MAX_WALK_DEPTH) {
          options.tooDeep?.(path);
          continue;
        }
        // Changed since it was listed (a link now, or gone): not entered.
        const child = await top.dir.child(entry.name, top.dir.showOf(entry.name)).catch(() => null);
        if (child) stack.push(await level(child, path, top.depth + 1));
      } else if (entry.isSymbolicLink()) {
        yield { ...found, kind: 'symlink' };
      } else {
        yield { ...found, kind: entry.isFile() ? 'file' : 'other' };
      }
    }
  } finally {
    for (const open of stack) if (open.dir !== start) await open.dir.close().catch(() => undefined);
    await start.close();
  }
}

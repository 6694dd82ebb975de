import { createHash } from 'node:crypto';
import { readlink } from 'node:fs/promises';
import { z } from 'zod';
import { readLeaf } from './safe-fs.js';
import { looksBinary } from './text-file.js';
import { walk } from './walk.js';
import { lazySchema } from '../config/lazy-schema.js';

/** One file in a snapshot: its content hash, size, and its text when it is text and small enough to diff. */
export const SnapshotEntrySchema = lazySchema(() =>
  z.object({
    hash: z.string(),
    size: z.number(),
    /** Absent for binary files, large files, and once the snapshot's text budget is spent. */
    text: z.string().optional(),
    /** Symbolic links are recorded by their target, never followed. */
    link: z.boolean().optional(),
  }),
);
/** One file in a snapshot. */
export type SnapshotEntry = z.infer<typeof SnapshotEntrySchema>;

/** The files of a directory at one moment (path → entry); `truncated` when there were more files than it holds. */
export const SnapshotSchema = lazySchema(() => z.object({ files: z.record(z.string(), SnapshotEntrySchema), truncated: z.boolean() }));
/** The files of a directory at one moment. */
export type Snapshot = z.infer<typeof SnapshotSchema>;

/** How much a snapshot holds. */
export interface SnapshotLimits {
  maxFiles: number;
  /** Files larger than this keep a hash only. */
  maxTextBytes: number;
  /** Text kept over all files; past it, files keep a hash only. */
  maxTotalTextBytes: number;
  /** Files larger than this are not read at all: their hash is their size and modification time. */
  maxHashBytes: number;
}

/** The default snapshot caps. */
export const DEFAULT_SNAPSHOT_LIMITS: SnapshotLimits = { maxFiles: 20_000, maxTextBytes: 256_000, maxTotalTextBytes: 32_000_000, maxHashBytes: 64_000_000 };

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Takes a snapshot of a directory's files (`.git` skipped, symlinks recorded by target, FIFOs, sockets and
 * devices left out; `truncated` past maxFiles, or when a directory lies deeper than a walk goes). Files are read through the pinned walk (never a link, never blocking on a FIFO); a
 * file with more than one hard link (which may be a file outside under a second name) is not read: like
 * a very large one, its hash is its size and modification time.
 */
export async function takeSnapshot(dir: string, limits: SnapshotLimits = DEFAULT_SNAPSHOT_LIMITS): Promise<Snapshot> {
  const files: Record<string, SnapshotEntry> = {};
  let count = 0;
  let textBytes = 0;
  let tooDeep = false;
  const markTooDeep = () => {
    tooDeep = true;
  };
  for await (const entry of walk(dir, { tooDeep: markTooDeep })) {
    if (entry.kind === 'dir' || entry.kind === 'other') continue;
    if (count >= limits.maxFiles) return { files, truncated: true };
    count += 1;
    if (entry.kind === 'symlink') {
      const target = await readlink(entry.dir.at(entry.name)).catch(() => '');
      files[entry.path] = { hash: sha(`link:${target}`), size: target.length, text: `(symbolic link to ${target})\n`, link: true };
      continue;
    }
    const stats = await entry.dir.lstat(entry.name).catch(() => null);
    if (!stats?.isFile()) continue;
    if (stats.size > limits.maxHashBytes || stats.nlink > 1) {
      files[entry.path] = { hash: `size:${stats.size}:mtime:${stats.mtimeMs}`, size: stats.size };
      continue;
    }
    const data = await readLeaf(entry.dir, entry.name, limits.maxHashBytes).catch(() => null);
    if (!data) continue;
    const keepText = data.length <= limits.maxTextBytes && textBytes + data.length <= limits.maxTotalTextBytes && !looksBinary(data);
    if (keepText) textBytes += data.length;
    files[entry.path] = { hash: sha(data), size: data.length, ...(keepText ? { text: data.toString('utf8') } : {}) };
  }
  return { files, truncated: tooDeep };
}

import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { relative } from 'node:path';
import type { ConfinedPath } from './confine.js';
import { refuseUntouchable } from './file-kind.js';
import { bytes } from './limits.js';
import { inParentOf, MissingOnTheWay, type PinnedDir } from './pinned-dir.js';
import { ToolError } from './tool.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;

const code = (error: unknown): string => (error as NodeJS.ErrnoException | null)?.code ?? String(error);

/**
 * Opens `name` in `dir` for reading, if the tools may touch it (refuseUntouchable: a regular file with one
 * name). O_NONBLOCK, so a FIFO swapped in after the look never blocks; O_NOFOLLOW; and once open it must be
 * the file that was looked at (device, inode) and still a single-named regular file.
 */
export async function openLeaf(dir: PinnedDir, name: string, verb: 'read' | 'written'): Promise<{ handle: FileHandle; stats: Stats }> {
  const shown = dir.showOf(name);
  const seen = await dir.lstat(name);
  if (!seen) throw new MissingOnTheWay(`"${shown}" does not exist`);
  refuseUntouchable(seen, shown, verb);
  const handle = await open(dir.at(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((error: unknown) => {
    throw new ToolError(`cannot open "${shown}": ${code(error) === 'ELOOP' ? 'it became a symbolic link' : code(error)}`);
  });
  const stats = await handle.stat();
  if (stats.dev !== seen.dev || stats.ino !== seen.ino || !stats.isFile() || stats.nlink > 1) {
    await handle.close();
    throw new ToolError(`"${shown}" changed while it was opened; try again`);
  }
  return { handle, stats };
}

/** Copies an open file's whole content into another, a chunk at a time (the source may be larger than memory). */
export async function copyContent(from: FileHandle, to: FileHandle): Promise<void> {
  const chunk = Buffer.alloc(1 << 20);
  for (let at = 0; ; ) {
    const { bytesRead } = await from.read(chunk, 0, chunk.length, at);
    if (bytesRead === 0) return;
    await to.write(chunk, 0, bytesRead, at);
    at += bytesRead;
  }
}

/** Reads `name` in `dir` (see openLeaf), at most `maxBytes`. */
export async function readLeaf(dir: PinnedDir, name: string, maxBytes: number): Promise<Buffer> {
  const shown = dir.showOf(name);
  const { handle, stats } = await openLeaf(dir, name, 'read');
  try {
    if (stats.size > maxBytes) throw new ToolError(`"${shown}" is ${bytes(stats.size)}, over the ${bytes(maxBytes)} limit for one file; use search_files to find what you need in it`);
    const buffer = Buffer.alloc(stats.size + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes) throw new ToolError(`"${shown}" grew past the ${bytes(maxBytes)} limit while it was read`);
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `name` in `dir` by a new file: `fill` writes a temp file beside it (created with O_EXCL), which
 * is then renamed over the name. A rename replaces the directory entry, never writes into what was there,
 * so no hard link or swapped-in symlink is ever written through, and a crash leaves the old file or the new
 * one, never half of it. What is there must pass refuseUntouchable (`existing: 'checked'`, the tools), or
 * may be anything but a directory (`'any'`, the undo log putting a file back). The old file's mode is kept.
 */
export async function replaceLeaf(dir: PinnedDir, name: string, fill: (handle: FileHandle) => Promise<void>, existing: 'checked' | 'any'): Promise<{ created: boolean }> {
  const shown = dir.showOf(name);
  const seen = await dir.lstat(name);
  if (seen && (existing === 'checked' || seen.isDirectory())) refuseUntouchable(seen, shown, 'written');
  const temp = `.troupe-write-${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(dir.at(temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644).catch((error: unknown) => {
    throw new ToolError(`cannot write "${shown}": ${code(error)}`);
  });
  let closed = false;
  let placed = false;
  try {
    await fill(handle);
    if (seen?.isFile()) await handle.chmod(seen.mode & 0o777);
    await handle.close();
    closed = true;
    await rename(dir.at(temp), dir.at(name)).catch((error: unknown) => {
      throw new ToolError(`cannot write "${shown}": ${code(error) === 'EISDIR' ? 'it became a directory' : code(error)}`);
    });
    placed = true;
  } finally {
    if (!closed) await handle.close().catch(() => undefined);
    if (!placed) await unlink(dir.at(temp)).catch(() => undefined);
  }
  return { created: seen === null };
}

/** Removes `name` from `dir` unless it is a directory; a link is removed itself, never what it points to. False when nothing was there. */
export async function removeLeaf(dir: PinnedDir, name: string): Promise<boolean> {
  const seen = await dir.lstat(name);
  if (!seen) return false;
  if (seen.isDirectory()) throw new ToolError(`"${dir.showOf(name)}" is a directory now; it is left as it is`);
  return unlink(dir.at(name)).then(
    () => true,
    (error: unknown) => {
      if (code(error) === 'ENOENT') return false;
      throw new ToolError(`cannot remove "${dir.showOf(name)}": ${code(error)}`);
    },
  );
}

/** Reads a regular file inside the workspace, at most `maxBytes`, through a walk that never follows a link (see pinned-dir.ts). */
export async function readConfined(root: string, path: ConfinedPath, maxBytes: number): Promise<Buffer> {
  if (!path.exists) throw new ToolError(`"${path.shown}" does not exist`);
  return inParentOf(root, relative(root, path.real), {}, (dir, name) => readLeaf(dir, name, maxBytes));
}

/** Writes a regular file inside the workspace (its missing directories made one checked step at a time); returns whether it was created. */
export async function writeConfined(root: string, path: ConfinedPath, data: Buffer): Promise<{ created: boolean }> {
  return inParentOf(root, relative(root, path.real), { create: true }, (dir, name) => replaceLeaf(dir, name, (handle) => handle.writeFile(data), 'checked'));
}

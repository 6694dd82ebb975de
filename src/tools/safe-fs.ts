import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readlink, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isInside, type ConfinedPath } from './confine.js';
import { bytes } from './limits.js';
import { ToolError } from './tool.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code;

/** What a non-regular file is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/**
 * Checks where an open file really is (Linux: /proc/self/fd), so a path swapped for a symlink between
 * the check and the open is caught after the fact. Where /proc is missing the earlier check stands alone.
 */
async function assertOpenedInside(handle: FileHandle, root: string, shown: string): Promise<void> {
  let target: string;
  try {
    target = await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return;
  }
  if (!isInside(root, target)) throw new ToolError(`"${shown}" led outside the workspace when opened; refused`);
}

/** Stats of a path that must be a regular file (lstat: a FIFO or device is refused before anything opens it). */
async function regularStats(path: ConfinedPath, verb: 'read' | 'written'): Promise<Stats> {
  const stats = await lstat(path.real);
  if (!stats.isFile()) throw new ToolError(`"${path.shown}" is ${kindOf(stats)}; only regular files can be ${verb}${stats.isDirectory() && verb === 'read' ? ' (list_files shows a directory)' : ''}`);
  return stats;
}

/** Reads a regular file inside the workspace, at most `maxBytes`; never blocks on a FIFO, never follows a swapped-in symlink. */
export async function readConfined(root: string, path: ConfinedPath, maxBytes: number): Promise<Buffer> {
  if (!path.exists) throw new ToolError(`"${path.shown}" does not exist`);
  const before = await regularStats(path, 'read');
  if (before.size > maxBytes) throw new ToolError(`"${path.shown}" is ${bytes(before.size)}, over the ${bytes(maxBytes)} limit for one file; use search_files to find what you need in it`);
  const handle = await open(path.real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((error: unknown) => {
    throw new ToolError(`cannot open "${path.shown}": ${code(error) === 'ELOOP' ? 'it became a symbolic link' : (code(error) ?? String(error))}`);
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.ino !== before.ino || stats.dev !== before.dev) throw new ToolError(`"${path.shown}" changed while it was opened; try again`);
    await assertOpenedInside(handle, root, path.shown);
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes) throw new ToolError(`"${path.shown}" grew past the ${bytes(maxBytes)} limit while it was read`);
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/**
 * Writes a regular file inside the workspace. An existing file is opened with O_NOFOLLOW (no
 * truncation until it is checked) and rewritten; a new one is created with O_EXCL after its parent
 * directories, and removed again if it turns out to be outside the workspace. Returns whether it was created.
 */
export async function writeConfined(root: string, path: ConfinedPath, data: Buffer): Promise<{ created: boolean }> {
  let handle: FileHandle;
  let created = false;
  if (path.exists) {
    const before = await regularStats(path, 'written');
    handle = await open(path.real, O_WRONLY | O_NOFOLLOW | O_NONBLOCK).catch((error: unknown) => {
      throw new ToolError(`cannot open "${path.shown}" for writing: ${code(error) === 'ELOOP' ? 'it became a symbolic link' : (code(error) ?? String(error))}`);
    });
    const stats = await handle.stat();
    if (!stats.isFile() || stats.ino !== before.ino || stats.dev !== before.dev) {
      await handle.close();
      throw new ToolError(`"${path.shown}" changed while it was opened; try again`);
    }
  } else {
    await mkdir(dirname(path.real), { recursive: true }).catch((error: unknown) => {
      throw new ToolError(`cannot create the directories for "${path.shown}": ${code(error) ?? String(error)}`);
    });
    handle = await open(path.real, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644).catch((error: unknown) => {
      throw new ToolError(`cannot create "${path.shown}": ${code(error) === 'EEXIST' ? 'something appeared there meanwhile; try again' : (code(error) ?? String(error))}`);
    });
    created = true;
  }
  try {
    await assertOpenedInside(handle, root, path.shown);
  } catch (error) {
    await handle.close();
    if (created) await unlink(path.real).catch(() => undefined);
    throw error;
  }
  try {
    await handle.truncate(0);
    await handle.write(data, 0, data.length, 0);
  } finally {
    await handle.close();
  }
  return { created };
}

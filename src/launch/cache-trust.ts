import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { folderOthersCanChange } from '../tools/folder-trust.js';

// V8 checks a cached script's source only by its length (measured: code cached for another source of the same
// length runs in its place), so whoever can write a cache file chooses the code the CLI runs. A cache is used
// only where no one but this user (or root) could have written it, as ssh treats its keys.

const uid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null);

/** Whether a file or folder's status says only this user or root could have changed it (its owner, no group or other write). */
export function ownedSafely(stats: Stats, me: number | null = uid()): boolean {
  if (me === null) return true;
  return (stats.uid === me || stats.uid === 0) && (stats.mode & 0o022) === 0;
}

/**
 * Whether `dir` (followed to its real path) and every folder above it could only have been changed by this user
 * or root: owned by one of them and not writable by group or others (root's sticky /tmp excepted).
 */
export function cacheDirTrusted(dir: string, me: number | null = uid()): boolean {
  return me === null || folderOthersCanChange(dir, { uid: me }) === null;
}

/**
 * The bytes of a cache file, or undefined unless it is a regular file (not a link, FIFO or device: opened without
 * following a link or waiting for a writer) that this user or root owns, in folders only they could change.
 */
export function readTrustedFile(file: string): Buffer | undefined {
  if (!cacheDirTrusted(dirname(file))) return undefined;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.nlink !== 1 || !ownedSafely(stats)) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

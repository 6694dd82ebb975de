import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { folderOthersCanChange } from './folder-trust.js';

const uid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null);

/**
 * The bytes of a file only this user could have written or read, or undefined: a regular file (opened without
 * following a link or waiting for a writer) that is its only link, this user's, with no permission for group or
 * others, at most `maxBytes` long, in folders (followed to their real paths) no one but this user or root could
 * change (root's sticky /tmp excepted). The one read of a file whose bytes troupe trusts: the seal key (whoever
 * reads it seals documents as this user) and the code cache (whoever writes it chooses the code the CLI runs).
 */
export function readPrivateFile(path: string, maxBytes: number, me: number | null = uid()): Buffer | undefined {
  if (me !== null && folderOthersCanChange(dirname(path), { uid: me }) !== null) return undefined;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    // Without uids (Windows) the mode bits say nothing either: only the file's kind, links and size are checked.
    const mine = me === null || (stats.uid === me && (stats.mode & 0o077) === 0);
    if (!stats.isFile() || stats.nlink !== 1 || !mine || stats.size > maxBytes) return undefined;
    const bytes = Buffer.alloc(stats.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return read === bytes.length ? bytes : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

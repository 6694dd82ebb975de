import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { SessionFileError } from './load-file.js';

/**
 * Opens a file of the store's own with `flags` (`what` names it in errors: "a journal"): a regular file at its own
 * name. A link there (a data dir can come with a cloned repository) would be read or written wherever it leads,
 * and a FIFO would block its reader for good; both are refused in one line. Other errors (ENOENT) are thrown as
 * openSync throws them.
 */
export function openOwnFile(path: string, flags: number, what: string): number {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new SessionFileError(`${path} is a link, not ${what} — move it out of the way`);
    throw error;
  }
  const stat = fstatSync(fd);
  if (stat.isFile()) return fd;
  closeSync(fd);
  throw new SessionFileError(`${path} is ${stat.isDirectory() ? 'a directory' : 'not a regular file'}, not ${what} — move it out of the way`);
}

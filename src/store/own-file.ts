import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { SessionFileError } from './load-file.js';

/** What is at a store file's name instead of a regular file. */
export type NotOwnFile = 'a link' | 'a directory' | 'not a regular file';

/**
 * Opens a file of the store's own with `flags` (`what` names it in errors: "a journal"): a regular file at its own
 * name. A link there (a data dir can come with a cloned repository) would be read or written wherever it leads,
 * and a FIFO would block its reader for good; both are refused in one line (`refuse` words it, by default a
 * SessionFileError saying to move it out of the way). Other errors (ENOENT) are thrown as openSync throws them.
 */
export function openOwnFile(
  path: string,
  flags: number,
  what: string,
  refuse: (found: NotOwnFile) => Error = (found) => new SessionFileError(`${path} is ${found}, not ${what} — move it out of the way`),
): number {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw refuse('a link');
    throw error;
  }
  const stat = fstatSync(fd);
  if (stat.isFile()) return fd;
  closeSync(fd);
  throw refuse(stat.isDirectory() ? 'a directory' : 'not a regular file');
}

import { statSync } from 'node:fs';
import { UserError } from '../errors.js';

/** The data directory cannot be used (not a directory, no permission, read-only, full). */
export class DataDirError extends UserError {}

const FIX = 'set TROUPE_DATA_DIR to a directory you can write';

/**
 * A filesystem error met while using the data directory, as a one-line DataDirError naming
 * TROUPE_DATA_DIR, the path and the fix; errors that are not about the filesystem pass through.
 */
export function dataDirError(error: unknown, dataDir: string, doing: string): unknown {
  if (error instanceof UserError) return error;
  const { code, path } = error as NodeJS.ErrnoException;
  const where = `the data directory ${dataDir} (TROUPE_DATA_DIR)`;
  const at = path && path !== dataDir ? ` at ${path}` : '';
  switch (code) {
    case 'ENOTDIR':
    case 'EEXIST':
      return new DataDirError(`cannot ${doing}: ${where} is not a directory — ${FIX}, or move the file out of the way`, { cause: error });
    case 'EACCES':
    case 'EPERM':
      return new DataDirError(`cannot ${doing}: permission denied in ${where}${at} — ${FIX}, or fix its permissions`, { cause: error });
    case 'EROFS':
      return new DataDirError(`cannot ${doing}: ${where} is on a read-only file system — ${FIX}`, { cause: error });
    case 'ENOSPC':
    case 'EDQUOT':
      return new DataDirError(`cannot ${doing}: no space left for ${where} — free some space or ${FIX}`, { cause: error });
    case 'EISDIR':
      return new DataDirError(`cannot ${doing}: ${path ?? 'a session file'} is a directory, not a file — move it out of the way`, { cause: error });
    default:
      // Any other system error (EIO, EFBIG, ...) is still about the disk: one line with the OS's own words.
      if (typeof code === 'string' && (error as NodeJS.ErrnoException).syscall) {
        return new DataDirError(`cannot ${doing}: ${(error as Error).message.split('\n')[0]}`, { cause: error });
      }
      return error;
  }
}

/** Throws a DataDirError when the data directory exists but is not a directory (reading it would find nothing). */
export function checkDataDir(dataDir: string): void {
  const stat = statSync(dataDir, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory()) throw dataDirError(Object.assign(new Error('not a directory'), { code: 'ENOTDIR', path: dataDir }), dataDir, 'read sessions');
}

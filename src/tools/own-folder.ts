import { lstat } from 'node:fs/promises';
import { UserError } from '../errors.js';

/**
 * Throws a one-line UserError when `path` exists as anything but a real directory. Troupe makes the folders
 * under a session's folder itself (`workspaces`, `.undo`, each undo log's folder), so one of them that is a link
 * (a hand-made data dir, such as a cloned repository's `.troupe/`) would make troupe write in, or remove from,
 * a folder of the user's. Resolves false when nothing is there, true when the directory is.
 */
export async function ownFolder(path: string): Promise<boolean> {
  const info = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (info === null) return false;
  if (info.isSymbolicLink()) throw new UserError(`${path} is a link: troupe makes this folder itself and works only in it; remove the link`);
  if (!info.isDirectory()) throw new UserError(`${path} is not a folder: troupe makes this folder itself; remove it`);
  return true;
}

import { folderOthersCanChange } from '../tools/folder-trust.js';

// V8 checks a cached script's source only by its length (measured: code cached for another source of the same
// length runs in its place), so whoever can write a cache file chooses the code the CLI runs. A cache is used
// only where no one but this user could have written it (tools/private-file.ts), as ssh treats its keys; it is
// written only into folders no one else could change.

const uid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null);

/**
 * Whether `dir` (followed to its real path) and every folder above it could only have been changed by this user
 * or root: owned by one of them and not writable by group or others (root's sticky /tmp excepted).
 */
export function cacheDirTrusted(dir: string, me: number | null = uid()): boolean {
  return me === null || folderOthersCanChange(dir, { uid: me }) === null;
}

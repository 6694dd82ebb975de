import { constants } from 'node:fs';
import { copyFile, mkdir, readdir, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Copies a directory tree: regular files (mode kept), directories, and symlinks as they are (never
 * followed, so a link out of the tree stays a link the tools refuse). Entries named in `skip` (like
 * `.git`), FIFOs, sockets and devices are left out, and so is `avoid` (a real path: the directory the
 * workspaces live in, when it lies inside the source), so the copy never copies itself.
 */
export async function copyTree(from: string, to: string, options: { skip: readonly string[]; avoid: string }): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (options.skip.includes(entry.name)) continue;
    const src = join(from, entry.name);
    const dest = join(to, entry.name);
    if (src === options.avoid) continue;
    if (entry.isSymbolicLink()) await symlink(await readlink(src), dest);
    else if (entry.isDirectory()) await copyTree(src, dest, options);
    else if (entry.isFile()) await copyFile(src, dest, constants.COPYFILE_FICLONE);
  }
}

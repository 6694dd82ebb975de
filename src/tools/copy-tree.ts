import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError } from '../errors.js';
import { byteSetting, bytes } from './limits.js';
import { isSecretFile } from './secret-files.js';

/** The setting that bounds what a workspace copy writes. */
export const COPY_MAX_SETTING = 'TROUPE_WORKSPACE_COPY_MAX_BYTES';

/** The most bytes a workspace copy writes unless COPY_MAX_SETTING says otherwise: 2 GB. */
export const DEFAULT_COPY_MAX_BYTES = 2_000_000_000;

/** A copy that would write more than it may: refused before the file that passes the bound is written. */
export class CopyTooLargeError extends UserError {}

/** The bound on what a workspace copy writes, from the environment (COPY_MAX_SETTING, in bytes); a value that is not a positive whole number is refused in one line. */
export function copyMaxBytes(env: Record<string, string | undefined> = process.env): number {
  return byteSetting(env, COPY_MAX_SETTING, DEFAULT_COPY_MAX_BYTES);
}

/** What a copy may do: names left out, a real path never entered, and the most bytes its files may hold in all. */
export interface CopyOptions {
  skip: readonly string[];
  avoid: readonly string[];
  /** Default: copyMaxBytes() (COPY_MAX_SETTING, else DEFAULT_COPY_MAX_BYTES). */
  maxBytes?: number;
}

/**
 * Copies a directory tree: regular files (mode kept), directories, and symlinks as they are (never
 * followed, so a link out of the tree stays a link the tools refuse). Entries named in `skip` (like
 * `.git`), the project's secrets (isSecretFile: `.env`, keys, credentials), FIFOs, sockets and devices are left out, and so is `avoid` (a real path: the directory the
 * workspaces live in, when it lies inside the source), so the copy never copies itself. The files' sizes
 * count against `maxBytes` before each is written: a copy writes a sparse file whole (a 1 TB file of
 * holes would fill the disk), so the file that would pass the bound is refused by name (CopyTooLargeError)
 * and nothing of it is written; what was copied before it stays for the caller to remove. Returns the bytes copied.
 */
export async function copyTree(from: string, to: string, options: CopyOptions): Promise<number> {
  const budget = { max: options.maxBytes ?? copyMaxBytes(), used: 0, root: from };
  await copyInto(from, to, options, budget);
  return budget.used;
}

async function copyInto(from: string, to: string, options: CopyOptions, budget: { max: number; used: number; root: string }): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (options.skip.includes(entry.name) || isSecretFile(entry.name, entry.isDirectory())) continue;
    const src = join(from, entry.name);
    const dest = join(to, entry.name);
    if (options.avoid.includes(src)) continue;
    if (entry.isSymbolicLink()) await symlink(await readlink(src), dest);
    else if (entry.isDirectory()) await copyInto(src, dest, options, budget);
    else if (entry.isFile()) {
      const stat = await lstat(src);
      if (budget.used + stat.size > budget.max) throw tooLarge(src, stat, budget);
      budget.used += stat.size;
      await copyFile(src, dest, constants.COPYFILE_FICLONE);
    }
  }
}

function tooLarge(file: string, stat: { size: number; blocks: number }, budget: { max: number; used: number; root: string }): CopyTooLargeError {
  // st_blocks counts 512-byte units on Linux and macOS: fewer than the size needs means holes.
  const sparse = stat.blocks * 512 < stat.size ? `, ${bytes(stat.blocks * 512)} of it on disk: a sparse file is copied whole` : '';
  const before = budget.used > 0 ? ` after ${bytes(budget.used)} already copied` : '';
  return new CopyTooLargeError(
    `copying ${budget.root} would write more than ${bytes(budget.max)} (${COPY_MAX_SETTING}): ${file} is ${bytes(stat.size)}${sparse}${before} — leave it out of that directory, or raise ${COPY_MAX_SETTING} (bytes)`,
  );
}

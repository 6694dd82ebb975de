import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { UserError } from '../errors.js';

/** Largest config file (team, persona, prompt, workflow, script) troupe reads. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Why a config file could not be read: a one-line problem and how to fix it. */
export class UnreadableFile extends UserError {
  constructor(
    readonly problem: string,
    readonly fix: string,
  ) {
    super(problem);
  }
}

/** True when `path` is `dir` itself or inside it (both already resolved). */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Checks that a directory troupe reads from (a team's personas/ or prompts/, a workflow folder) really lies
 * inside the directory holding it: its real path (symlinks followed) within the container's real path.
 * Throws UnreadableFile when it leads out (or cannot be resolved).
 */
export function assertDirInside(container: string, dir: string, name: string): void {
  let realContainer: string;
  let real: string;
  try {
    realContainer = realpathSync(container);
    real = realpathSync(dir);
  } catch {
    throw new UnreadableFile(`${name} does not exist`, 'create it or fix the name');
  }
  if (!isInside(realContainer, real)) throw new UnreadableFile(`${name} leads outside ${container} (a symlink)`, `make ${name} a directory inside ${container}, not a link out of it`);
}

/**
 * Reads a config file that must stay inside `root`: the real path (symlinks followed) must lie within
 * the real root, it must be a regular file (a FIFO, device or directory is refused without blocking),
 * at most `maxBytes`, and valid UTF-8. Throws UnreadableFile naming the problem and the fix.
 */
export function readConfigText(root: string, path: string, maxBytes = MAX_CONFIG_BYTES): string {
  const wanted = resolve(root, path);
  let realRoot: string;
  let real: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    throw new UnreadableFile(`directory ${root} does not exist`, 'check the path');
  }
  if (!isInside(resolve(root), wanted)) throw new UnreadableFile(`"${path}" is outside ${root}`, `keep the file inside ${root} (no "..", no absolute paths)`);
  try {
    real = realpathSync(wanted);
  } catch {
    throw new UnreadableFile(`${path} does not exist`, 'create it or fix the name');
  }
  if (!isInside(realRoot, real)) throw new UnreadableFile(`"${path}" leads outside ${root} (a symlink)`, `keep the file itself inside ${root}`);
  const kind = statSync(real);
  if (kind.isDirectory()) throw new UnreadableFile(`${path} is a directory, not a file`, 'name a file');
  if (!kind.isFile()) throw new UnreadableFile(`${path} is not a regular file (a FIFO, socket or device)`, 'name a regular file');
  if (kind.size > maxBytes) throw new UnreadableFile(`${path} is ${kind.size} bytes (at most ${maxBytes})`, 'make it smaller');
  // O_NONBLOCK: if the file was swapped for a FIFO after the check, opening it does not hang.
  const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw new UnreadableFile(`${path} is not a regular file`, 'name a regular file');
    // Sized from the file (one byte more shows it grew); grown only if it grew since, never past maxBytes + 1.
    let buffer = Buffer.allocUnsafe(Math.min(opened.size, maxBytes) + 1);
    let length = 0;
    for (let n = 1; n > 0 && length <= maxBytes; length += n) {
      if (length === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(Math.min(buffer.length, maxBytes + 1 - buffer.length))]);
      n = readSync(fd, buffer, length, buffer.length - length, null);
    }
    if (length > maxBytes) throw new UnreadableFile(`${path} is larger than ${maxBytes} bytes`, 'make it smaller');
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length));
    } catch {
      throw new UnreadableFile(`${path} is not valid UTF-8 text`, 'save it as UTF-8');
    }
  } finally {
    closeSync(fd);
  }
}

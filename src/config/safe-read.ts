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
  const read = readRegularFile(real, maxBytes);
  if ('problem' in read)
    throw read.problem === 'not regular'
      ? new UnreadableFile(`${path} is not a regular file`, 'name a regular file')
      : new UnreadableFile(`${path} is larger than ${maxBytes} bytes`, 'make it smaller');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(read.bytes);
  } catch {
    throw new UnreadableFile(`${path} is not valid UTF-8 text`, 'save it as UTF-8');
  }
}

/** What reading a regular file found: its bytes, or why they were not read (a directory, FIFO or device; more than the limit: `size` bytes at least). */
export type RegularFileRead = { bytes: Buffer } | { problem: 'not regular' } | { problem: 'too large'; size: number };

/**
 * Reads a regular file of at most `maxBytes`, opened without waiting for a FIFO's writer (a FIFO swapped in after a
 * check never hangs the reader; a device such as /dev/zero is refused, not read). Its size is counted as it is read,
 * so a file that grows past the limit while read is refused too. An open that fails is thrown as openSync throws.
 */
export function readRegularFile(path: string, maxBytes: number): RegularFileRead {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) return { problem: 'not regular' };
    if (opened.size > maxBytes) return { problem: 'too large', size: opened.size };
    // Sized from the file (one byte more shows it grew); grown only if it grew since, never past maxBytes + 1.
    let buffer = Buffer.allocUnsafe(opened.size + 1);
    let length = 0;
    for (let n = 1; n > 0 && length <= maxBytes; length += n) {
      if (length === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(Math.min(buffer.length, maxBytes + 1 - buffer.length))]);
      n = readSync(fd, buffer, length, buffer.length - length, null);
    }
    return length > maxBytes ? { problem: 'too large', size: length } : { bytes: buffer.subarray(0, length) };
  } finally {
    closeSync(fd);
  }
}

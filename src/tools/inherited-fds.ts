import { readdir, readFile } from 'node:fs/promises';

/** Linux's close-on-exec bit in /proc/<pid>/fdinfo's `flags` (octal). */
const O_CLOEXEC = 0o2000000;

/**
 * The descriptors above stderr this process holds without close-on-exec, which every child would inherit
 * (and a jailed command with them: a file or socket outside the jail, open for writing). Node opens its own
 * with close-on-exec and marks inherited ones so only up to the first gap past 15; a parent (a `3>file`, a
 * job server, a supervisor) can leave others. Read from /proc/self/fdinfo; none where it cannot be read.
 */
export async function inheritableDescriptors(): Promise<number[]> {
  const names = await readdir('/proc/self/fdinfo').catch(() => [] as string[]);
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
    const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) found.push(fd);
  }
  return found.sort((a, b) => a - b);
}

/**
 * The `stdio` of a spawn whose child gets stdin ignored and stdout/stderr piped, and every descriptor in
 * `cover` replaced by `nullFd` (an open /dev/null): the child holds /dev/null at those numbers, never what
 * this process had there.
 */
export function stdioCovering(cover: readonly number[], nullFd: number): ('ignore' | 'pipe' | number)[] {
  const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe'];
  for (const fd of cover) {
    while (stdio.length < fd) stdio.push('ignore');
    stdio[fd] = nullFd;
  }
  return stdio;
}

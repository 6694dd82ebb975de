import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processInfo } from './process-info.js';

/** A pids cgroup made for one command: where it is (its `cgroup.procs` takes the command's first process), and its removal once the command is over. */
export interface CommandCgroup {
  procs: string;
  release(): Promise<void>;
}

/**
 * The directory the pids controller puts this process in, from /proc/self/mounts and /proc/self/cgroup: a
 * cgroup v1 hierarchy mounted with `pids`, else the cgroup v2 one. Null when neither is mounted (not Linux,
 * a container without cgroups). Whether troupe may make cgroups there is found by trying.
 */
export function pidsCgroupHome(mounts: string, cgroups: string): { dir: string; v2: boolean } | null {
  const mountLines = mounts.split('\n').map((line) => line.split(' '));
  const v1 = mountLines.find((f) => f[2] === 'cgroup' && (f[3] ?? '').split(',').includes('pids'));
  const own = (pattern: RegExp) =>
    cgroups
      .split('\n')
      .map((line) => pattern.exec(line)?.[1])
      .find((p) => p !== undefined);
  if (v1?.[1]) {
    const path = own(/^\d+:(?:[^:]*,)?pids(?:,[^:]*)?:(.*)$/);
    if (path !== undefined) return { dir: join(v1[1], path), v2: false };
  }
  const v2 = mountLines.find((f) => f[2] === 'cgroup2');
  const path = own(/^0::(.*)$/);
  return v2?.[1] && path !== undefined ? { dir: join(v2[1], path), v2: true } : null;
}

// A POSIX sh moves itself into the cgroup (its `cgroup.procs`, $1), then becomes the program.
const MOVE_IN = 'echo $$ > "$1" && shift && exec "$@"';

let home: Promise<string | null> | null = null;
let made = 0;

/** Where this process makes its commands' cgroups, found once: null when there is no pids controller it may use. */
function cgroupHome(): Promise<string | null> {
  home ??= (async () => {
    let found: ReturnType<typeof pidsCgroupHome>;
    try {
      found = pidsCgroupHome(readFileSync('/proc/self/mounts', 'utf8'), readFileSync('/proc/self/cgroup', 'utf8'));
    } catch {
      return null;
    }
    if (!found) return null;
    // On cgroup v2 a child has pids.max only where the controller is handed down already (a container's own
    // cgroup namespace, a delegated cgroup): troupe does not change the machine's cgroup settings to get it.
    const probe = join(found.dir, `troupe-${process.pid}-probe`);
    try {
      await mkdir(probe);
    } catch {
      return null;
    }
    // It has the controller, and a process may be moved in (a container may let troupe make a cgroup it cannot enter).
    const usable =
      (await readFile(join(probe, 'pids.max'), 'utf8').then(
        () => true,
        () => false,
      )) && (await entered(join(probe, 'cgroup.procs')));
    await removeWhenEmpty(probe);
    if (usable) await sweepLeftOver(found.dir);
    return usable ? found.dir : null;
  })();
  return home;
}

/**
 * A pids cgroup of its own for one command, at most `processes` processes and threads in it (and the two of
 * bubblewrap), or null where troupe may not make one. RLIMIT_NPROC does not hold root (the kernel exempts uid 0
 * in every user namespace), so a command of troupe run as root could fork without end; a cgroup holds root too.
 */
export async function commandCgroup(processes: number): Promise<CommandCgroup | null> {
  const parent = await cgroupHome();
  if (parent === null) return null;
  made += 1;
  const dir = join(parent, `troupe-${process.pid}-${made}`);
  try {
    await mkdir(dir);
    await writeFile(join(dir, 'pids.max'), String(Math.max(1, Math.floor(processes)) + 2));
  } catch {
    await rmdir(dir).catch(() => undefined);
    return null;
  }
  return { procs: join(dir, 'cgroup.procs'), release: () => removeWhenEmpty(dir) };
}

/** Whether a sh can move itself into the cgroup whose `cgroup.procs` this is (as inCgroup's does). */
function entered(procs: string): Promise<boolean> {
  return new Promise((resolve) => execFile('/bin/sh', ['-c', MOVE_IN, 'sh', procs, 'true'], { timeout: 10_000 }, (error) => resolve(error === null)));
}

/**
 * Removes the cgroups troupe processes that are gone left under `parent` (one that exits right after its last
 * command cannot wait for the removal); one still holding a process stays. A zombie is gone: where PID 1 reaps no
 * orphans, `kill(pid, 0)` still finds it, and its cgroups stayed.
 */
export async function sweepLeftOver(parent: string): Promise<void> {
  const names = await readdir(parent).catch(() => [] as string[]);
  for (const name of names) {
    const pid = /^troupe-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && processInfo(Number(pid)).state !== 'running') await rmdir(join(parent, name)).catch(() => undefined);
  }
}

/** Removes a cgroup once its last process is gone (the jail's die with its init, a moment after it: EBUSY until then). */
async function removeWhenEmpty(dir: string): Promise<void> {
  for (let tries = 0; tries < 50; tries++) {
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY') return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/**
 * The program and arguments that run `program args` inside the cgroup: a POSIX sh moves itself in (so
 * every process the command starts is counted from its first), then becomes the program.
 */
export function inCgroup(group: CommandCgroup, program: string, args: readonly string[]): { program: string; args: string[] } {
  return { program: '/bin/sh', args: ['-c', MOVE_IN, 'sh', group.procs, program, ...args] };
}

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processInfo } from './process-info.js';

/** The cgroups made for one command: their `cgroup.procs` files (the command's first process enters each), whether the kernel killed a process of it for passing its memory limit, and their removal once the command is over. */
export interface CommandCgroup {
  procs: string[];
  memoryKilled(): Promise<boolean>;
  release(): Promise<void>;
}

/** The cgroup controllers troupe bounds a command with: its processes and threads, and its memory in all. */
export type Controller = 'pids' | 'memory';

/**
 * The directory the `controller` puts this process in, from /proc/self/mounts and /proc/self/cgroup: a cgroup v1
 * hierarchy mounted with it, else the cgroup v2 one. Null when neither is mounted (not Linux, a container without
 * cgroups). Whether troupe may make cgroups there, and whether v2 hands the controller down, is found by trying.
 */
export function controllerHome(mounts: string, cgroups: string, controller: Controller): { dir: string; v2: boolean } | null {
  const mountLines = mounts.split('\n').map((line) => line.split(' '));
  const v1 = mountLines.find((f) => f[2] === 'cgroup' && (f[3] ?? '').split(',').includes(controller));
  const own = (pattern: RegExp) =>
    cgroups
      .split('\n')
      .map((line) => pattern.exec(line)?.[1])
      .find((p) => p !== undefined);
  if (v1?.[1]) {
    const path = own(new RegExp(`^\\d+:(?:[^:]*,)?${controller}(?:,[^:]*)?:(.*)$`));
    if (path !== undefined) return { dir: join(v1[1], path), v2: false };
  }
  const v2 = mountLines.find((f) => f[2] === 'cgroup2');
  const path = own(/^0::(.*)$/);
  return v2?.[1] && path !== undefined ? { dir: join(v2[1], path), v2: true } : null;
}

// A POSIX sh moves itself into each cgroup (the count of `cgroup.procs` files, $1, then the files), then becomes the program.
const MOVE_IN = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"';

/** What limits a controller's cgroup and where its kernel counts the processes it killed for memory. */
const LIMIT_FILE: Record<Controller, { v1: string; v2: string }> = { pids: { v1: 'pids.max', v2: 'pids.max' }, memory: { v1: 'memory.limit_in_bytes', v2: 'memory.max' } };

/** One place troupe makes its commands' cgroups: a directory and the controllers it holds there (both on cgroup v2). */
interface Home {
  dir: string;
  v2: boolean;
  controllers: Controller[];
}

let homes: Promise<Home[]> | null = null;
let made = 0;

/** Where this process makes its commands' cgroups, found once: none where there is no controller it may use. */
function cgroupHomes(): Promise<Home[]> {
  homes ??= (async () => {
    let mounts: string;
    let cgroups: string;
    try {
      mounts = readFileSync('/proc/self/mounts', 'utf8');
      cgroups = readFileSync('/proc/self/cgroup', 'utf8');
    } catch {
      return [];
    }
    const found: Home[] = [];
    for (const controller of ['pids', 'memory'] as const) {
      const at = controllerHome(mounts, cgroups, controller);
      if (!at) continue;
      const same = found.find((h) => h.dir === at.dir);
      if (same) same.controllers.push(controller);
      else found.push({ ...at, controllers: [controller] });
    }
    const usable: Home[] = [];
    for (const home of found) {
      const controllers = await usableControllers(home);
      if (controllers.length > 0) usable.push({ ...home, controllers });
    }
    return usable;
  })();
  return homes;
}

/**
 * The controllers of `home` troupe may use: a cgroup made there has the controller's limit file (on cgroup v2 only
 * where the controller is handed down already: a container's own cgroup namespace, a delegated cgroup; troupe does
 * not change the machine's cgroup settings to get it), and a process may be moved in (a container may let troupe
 * make a cgroup it cannot enter). Sweeps what gone troupe processes left there.
 */
async function usableControllers(home: Home): Promise<Controller[]> {
  const probe = join(home.dir, `troupe-${process.pid}-probe`);
  try {
    await mkdir(probe);
  } catch {
    return [];
  }
  const present = await Promise.all(
    home.controllers.map((c) =>
      readFile(join(probe, home.v2 ? LIMIT_FILE[c].v2 : LIMIT_FILE[c].v1), 'utf8').then(
        () => c,
        () => null,
      ),
    ),
  );
  const controllers = present.filter((c): c is Controller => c !== null);
  const usable = controllers.length > 0 && (await entered(join(probe, 'cgroup.procs')));
  await removeWhenEmpty(probe);
  if (usable) await sweepLeftOver(home.dir);
  return usable ? controllers : [];
}

/** The bounds a command's cgroups hold it to: its processes and threads, and the memory its processes hold together. */
export interface CgroupLimits {
  processes: number;
  memoryBytes: number;
}

/**
 * Cgroups of its own for one command, or null where troupe may make none: a pids cgroup of at most `processes`
 * processes and threads (and the two of bubblewrap), and a memory cgroup of at most `memoryBytes` for all its
 * processes together (swap included where the kernel counts it; the kernel kills one of its processes past it).
 * RLIMIT_NPROC does not hold root (the kernel exempts uid 0 in every user namespace), so a command of troupe run as
 * root could fork without end; and RLIMIT_DATA bounds each process, so many processes each near it held the
 * machine's memory. A cgroup holds root too.
 */
export async function commandCgroup(limits: CgroupLimits): Promise<CommandCgroup | null> {
  made += 1;
  const groups: { dir: string; v2: boolean; controllers: Controller[] }[] = [];
  for (const home of await cgroupHomes()) {
    const dir = join(home.dir, `troupe-${process.pid}-${made}`);
    try {
      await mkdir(dir);
      for (const controller of home.controllers) await setLimit(dir, home.v2, controller, limits);
      groups.push({ dir, v2: home.v2, controllers: home.controllers });
    } catch {
      await rmdir(dir).catch(() => undefined);
    }
  }
  if (groups.length === 0) return null;
  const memory = groups.find((g) => g.controllers.includes('memory'));
  return {
    procs: groups.map((g) => join(g.dir, 'cgroup.procs')),
    memoryKilled: async () => (memory ? oomKills(await readFile(join(memory.dir, memory.v2 ? 'memory.events' : 'memory.oom_control'), 'utf8').catch(() => '')) > 0 : false),
    release: async () => {
      await Promise.all(groups.map((g) => removeWhenEmpty(g.dir)));
    },
  };
}

/** Writes a controller's limit into a new cgroup; throws where the kernel refuses it. */
async function setLimit(dir: string, v2: boolean, controller: Controller, limits: CgroupLimits): Promise<void> {
  if (controller === 'pids') {
    await writeFile(join(dir, 'pids.max'), String(Math.max(1, Math.floor(limits.processes)) + 2));
    return;
  }
  const bytes = String(Math.max(1024 * 1024, Math.floor(limits.memoryBytes)));
  await writeFile(join(dir, LIMIT_FILE.memory[v2 ? 'v2' : 'v1']), bytes);
  // Swap too, where the kernel counts it (v1: memory and swap together, at least the memory limit; v2: swap alone).
  if (v2) await writeFile(join(dir, 'memory.swap.max'), '0').catch(() => undefined);
  else await writeFile(join(dir, 'memory.memsw.limit_in_bytes'), bytes).catch(() => undefined);
}

/** How many processes the kernel killed in a memory cgroup for passing its limit, from `memory.oom_control` (v1) or `memory.events` (v2). */
export function oomKills(text: string): number {
  return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
}

/** Whether a sh can move itself into the cgroup whose `cgroup.procs` this is (as inCgroup's does). */
function entered(procs: string): Promise<boolean> {
  return new Promise((resolve) => execFile('/bin/sh', ['-c', MOVE_IN, 'sh', '1', procs, 'true'], { timeout: 10_000 }, (error) => resolve(error === null)));
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
 * The program and arguments that run `program args` inside the cgroups: a POSIX sh moves itself into each (so
 * every process the command starts is counted from its first), then becomes the program.
 */
export function inCgroup(group: CommandCgroup, program: string, args: readonly string[]): { program: string; args: string[] } {
  return { program: '/bin/sh', args: ['-c', MOVE_IN, 'sh', String(group.procs.length), ...group.procs, program, ...args] };
}

import { delimiter, isAbsolute, join, normalize } from 'node:path';
import { isInside } from './confine.js';

/** What of the host a jail shows, read once from the machine (see jail-host.ts). */
export interface HostLayout {
  /** Top-level system directories bound read-only (`/usr`), or re-created as the symlinks they are (`/bin -> usr/bin`). */
  system: { path: string; link?: string }[];
  /** Files and directories under /etc bound read-only: what programs and their libraries read, no secrets. */
  etc: string[];
  /** /proc entries made read-only in the jail's own /proc (kernel settings). */
  procReadOnly: string[];
  /** /proc entries hidden (directories covered by an empty tmpfs, files by /dev/null). */
  procHidden: { path: string; dir: boolean }[];
}

/** Most bytes the jail's private /tmp holds: it is memory, so a command filling it would fill the machine's memory. */
export const JAIL_TMP_BYTES = 1024 * 1024 * 1024;

/** Most bytes the jail's /dev/shm holds (POSIX shared memory, as Docker's default): the rest of /dev is read-only. */
export const JAIL_SHM_BYTES = 64 * 1024 * 1024;

/** One command's jail: where it works and what else it may touch. */
export interface JailSpec {
  /** The workspace (a real path): the only writable place, bound at the same path. */
  workspace: string;
  /**
   * The directory the workspace was made in when the workspace is a subdirectory of it (a git clone's
   * top): visible read-only, its `.git` writable, so git works from the subdirectory.
   */
  top?: string;
  /** Share the host's network (default: a network namespace of its own with only a loopback device). */
  network: boolean;
}

/** Every directory the jail shows: the system directories, /etc's chosen entries, the workspace (and its top). */
export function visibleRoots(spec: JailSpec, layout: HostLayout): string[] {
  return [...layout.system.filter((s) => !s.link).map((s) => s.path), ...layout.etc, spec.workspace, ...(spec.top ? [spec.top] : [])];
}

/** True when `path` (a real path) is something the jail shows. */
export function visibleInJail(path: string, spec: JailSpec, layout: HostLayout): boolean {
  return visibleRoots(spec, layout).some((root) => isInside(root, path));
}

/**
 * The PATH a jailed command sees: the entries of `path` that are absolute, inside a system directory the
 * jail binds and not inside the workspace (nothing the agent wrote shadows a system program); a system
 * default when none is left.
 */
export function jailPath(path: string, spec: JailSpec, layout: HostLayout): string {
  const system = layout.system.map((s) => s.path);
  const kept = path
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .map((dir) => normalize(dir))
    .filter((dir) => system.some((root) => isInside(root, dir)) && !isInside(spec.workspace, dir) && !(spec.top && isInside(spec.top, dir)));
  const unique = [...new Set(kept)];
  return unique.length > 0 ? unique.join(delimiter) : '/usr/local/bin:/usr/bin:/bin';
}

/** Why a workspace cannot be jailed (it holds or is a system directory), or null when it can. */
export function unjailable(spec: JailSpec, layout: HostLayout): string | null {
  for (const dir of [spec.workspace, ...(spec.top ? [spec.top] : [])]) {
    const held = [...layout.system.map((s) => s.path), '/etc', '/proc', '/dev', '/tmp'].find((sys) => isInside(dir, sys));
    if (held) return `the workspace ${dir} holds ${held}; commands run only in a directory of their own`;
  }
  return null;
}

/**
 * bubblewrap's arguments for one command (before `--` and the command). Every namespace is new: a user
 * namespace with no capabilities and none nested (so read-only mounts stay read-only even for root), a
 * PID namespace (the jail sees only its own processes in /proc, and they all die when the command's
 * init exits or troupe does), IPC, UTS, cgroup, and a network namespace unless `network` is on. The root
 * is an empty read-only tmpfs holding: the system directories and chosen /etc entries read-only, a new
 * /proc with kernel settings read-only and kernel internals hidden, a minimal /dev, a private /tmp (1 GiB at most), and
 * the workspace read-write at its own path.
 */
export function jailArgs(spec: JailSpec, layout: HostLayout): string[] {
  const args = ['--unshare-all', '--unshare-user', '--disable-userns', '--cap-drop', 'ALL', '--die-with-parent', '--new-session', '--hostname', 'jail'];
  if (spec.network) args.push('--share-net');
  for (const s of layout.system) args.push(...(s.link ? ['--symlink', s.link, s.path] : ['--ro-bind', s.path, s.path]));
  for (const e of layout.etc) args.push('--ro-bind', e, e);
  args.push('--proc', '/proc');
  // Bind sources are host paths, so these cover the jail's /proc with the host's read-only view (kernel
  // settings are not per-PID); root in the jail is root on the host's files, so /proc/sys must not be writable.
  for (const p of layout.procReadOnly) args.push('--ro-bind', p, p);
  for (const h of layout.procHidden) args.push(...(h.dir ? ['--tmpfs', h.path] : ['--ro-bind', '/dev/null', h.path]));
  // bubblewrap's /dev is a memory file system of half the machine's memory, writable: a command filled it (/dev/shm,
  // or /dev itself) past the bounded /tmp. Only /dev/shm is writable, and bounded.
  args.push('--dev', '/dev', '--size', String(JAIL_SHM_BYTES), '--tmpfs', '/dev/shm', '--remount-ro', '/dev', '--size', String(JAIL_TMP_BYTES), '--tmpfs', '/tmp');
  if (spec.top) {
    args.push('--ro-bind', spec.top, spec.top, '--bind-try', join(spec.top, '.git'), join(spec.top, '.git'));
  }
  args.push('--bind', spec.workspace, spec.workspace, '--chdir', spec.workspace, '--remount-ro', '/');
  return args;
}

/** What each jailed command may use of the machine (see ToolLimits). */
export interface JailResources {
  memoryBytes: number;
  fileBytes: number;
  processes: number;
}

// Node cannot set a child's resource limits, and bubblewrap has no option for them: a POSIX sh inside the jail
// sets them (soft and hard, so the command cannot raise them again), then becomes the command. Inside,
// because RLIMIT_NPROC then counts the jail's own user namespace, not every process of the user. Units are
// the shells' own: -d in KiB, -f in 512-byte blocks (POSIX); processes are -u in bash and busybox, -p in dash.
// A limit the user already has lower (a hard limit sh may not raise) is left as it is.
const LIMITS_SCRIPT = 'ulimit -c 0; ulimit -d "$1" 2>/dev/null; ulimit -f "$2" 2>/dev/null; { ulimit -u "$3" || ulimit -p "$3"; } 2>/dev/null; shift 3; exec "$@"';

/**
 * The argv the jail runs for `command` (after bubblewrap's `--`): the command under the resource limits, as
 * it would run alone (a bare name found on the jail's PATH, argv[0] as written). Without them a command an
 * allowed `node` runs could hold all of the machine's memory or fill its disk with one file.
 */
export function limitedCommand(command: readonly string[], resources: JailResources): string[] {
  const kib = Math.max(1, Math.floor(resources.memoryBytes / 1024));
  const blocks = Math.max(1, Math.floor(resources.fileBytes / 512));
  return ['/bin/sh', '-c', LIMITS_SCRIPT, 'sh', String(kib), String(blocks), String(Math.max(1, Math.floor(resources.processes))), ...command];
}

import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, lstat, mkdtemp, readdir, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { jailArgs, type HostLayout } from './jail.js';

/** Top-level directories that hold the system's programs and libraries. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The /etc entries a jail shows: the dynamic linker's cache, Debian's alternatives (cc, java, editor),
 * user and group names (no password hashes: those are in shadow), name resolution and socket tables,
 * public TLS certificates, the time zone, the OS name, MIME and magic tables, and the language runtimes'
 * own settings. Left out on purpose, because they hold secrets or the host's identity: shadow, gshadow,
 * ssh (host keys), ssl/private, sudoers, security, pam.d, gitconfig, npmrc, pip.conf, wgetrc, apt
 * (auth.conf.d), environment, machine-id, hostname, and everything else not named here.
 */
const ETC_ENTRIES =
  /^(ld\.so\.(cache|conf|conf\.d)|alternatives|passwd|group|nsswitch\.conf|host\.conf|hosts|resolv\.conf|gai\.conf|services|protocols|networks|localtime|timezone|os-release|mime\.types|magic(\.mime)?|ca-certificates(\.conf)?|python3(\.\d+)?|perl|java-\d+-openjdk|terminfo|inputrc|shells|xml|sgml|fonts)$/;
/** Public certificates and OpenSSL's settings; /etc/ssl/private stays out. */
const ETC_SSL = ['/etc/ssl/certs', '/etc/ssl/openssl.cnf'];

/** Kernel settings made read-only, as container runtimes do (bubblewrap itself covers /proc/bus and /proc/irq). */
const PROC_READ_ONLY = ['/proc/sys', '/proc/sysrq-trigger', '/proc/fs'];
/** Kernel internals hidden, as container runtimes do. */
const PROC_HIDDEN = ['/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list', '/proc/sched_debug', '/proc/scsi'];

const kindOf = (path: string) =>
  lstat(path).then(
    (s) => s,
    () => null,
  );

/** Reads what of this machine a jail shows (which system directories exist, which are symlinks, the chosen /etc entries). */
export async function readHostLayout(): Promise<HostLayout> {
  const system: HostLayout['system'] = [];
  for (const path of SYSTEM_DIRS) {
    const s = await kindOf(path);
    if (s?.isSymbolicLink()) system.push({ path, link: await readlink(path) });
    else if (s?.isDirectory()) system.push({ path });
  }
  const etcNames = await readdir('/etc').catch(() => [] as string[]);
  const etc = [
    ...etcNames
      .filter((n) => ETC_ENTRIES.test(n))
      .sort()
      .map((n) => join('/etc', n)),
    ...ETC_SSL,
  ];
  const present: string[] = [];
  // A dangling link (e.g. resolv.conf pointing into an absent /run) cannot be bound: leave it out.
  for (const path of etc)
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    )
      present.push(path);
  const procReadOnly: string[] = [];
  for (const path of PROC_READ_ONLY) if (await kindOf(path)) procReadOnly.push(path);
  const procHidden: HostLayout['procHidden'] = [];
  for (const path of PROC_HIDDEN) {
    const s = await kindOf(path);
    if (s) procHidden.push({ path, dir: s.isDirectory() });
  }
  return { system, etc: present, procReadOnly, procHidden };
}

/** bubblewrap on the parent's PATH (absolute entries only), or null when it is not installed. */
export async function findBwrap(path = process.env.PATH ?? ''): Promise<string | null> {
  for (const dir of [...path.split(delimiter), '/usr/bin', '/bin']) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, 'bwrap');
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return null;
}

/** A jail that works here, or one line saying what is missing. */
export type JailReadiness = { ok: true; bwrap: string; layout: HostLayout } | { ok: false; reason: string };

/** Runs `true` in a jail around an empty directory to learn whether bubblewrap can create its namespaces here; the failure's first line, or null. */
async function probe(bwrap: string, layout: HostLayout): Promise<string | null> {
  const workspace = await mkdtemp(join(tmpdir(), 'troupe-jail-probe-'));
  try {
    return await new Promise((resolve) => {
      execFile(bwrap, [...jailArgs({ workspace, network: false }, layout), '--', 'true'], { env: { PATH: '/usr/bin:/bin' }, timeout: 20_000 }, (error, _stdout, stderr) => {
        if (!error) return resolve(null);
        resolve(stderr.trim().split('\n')[0] || error.message.split('\n')[0]!);
      });
    });
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

const checked = new Map<string, Promise<JailReadiness>>();

/**
 * Whether commands can be jailed on this machine: Linux, bubblewrap installed, and able to create its
 * namespaces. A working jail is remembered per bubblewrap path for the process; a failure is checked
 * again on the next command (it may have been passing, or fixed). `bwrap` overrides where bubblewrap is looked for.
 */
export function jailReadiness(bwrap?: string): Promise<JailReadiness> {
  const key = bwrap ?? '';
  let ready = checked.get(key);
  if (!ready) {
    ready = (async (): Promise<JailReadiness> => {
      if (process.platform !== 'linux') return { ok: false, reason: `commands run only in a Linux sandbox (bubblewrap), and this is ${process.platform}` };
      const found = bwrap ?? (await findBwrap());
      if (
        found === null ||
        !(await access(found, constants.X_OK).then(
          () => true,
          () => false,
        ))
      )
        return { ok: false, reason: 'bubblewrap (bwrap) is not installed; install it (apt-get install bubblewrap) so commands can run in a sandbox' };
      const layout = await readHostLayout();
      const failure = await probe(found, layout);
      if (failure !== null) return { ok: false, reason: `bubblewrap cannot set up the sandbox here (${failure}); commands are not run without it` };
      return { ok: true, bwrap: found, layout };
    })();
    checked.set(key, ready);
    const forget = () => void checked.delete(key);
    ready.then((r) => (r.ok ? undefined : forget()), forget);
  }
  return ready;
}

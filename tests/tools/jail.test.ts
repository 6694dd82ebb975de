import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { fingerprint } from '../helpers/fingerprint.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import type { CommandPolicy } from '../../src/tools/command-policy.js';
import { JAIL_SHM_BYTES, JAIL_TMP_BYTES, jailArgs, jailPath, unjailable, type HostLayout } from '../../src/tools/jail.js';
import { readHostLayout } from '../../src/tools/jail-host.js';
import { bwrapMissing } from '../helpers/jail.js';
import { createToolset, type ToolsetOptions } from '../../src/tools/toolset.js';
import { createWorkspace } from '../../src/tools/workspace.js';

const temp = tempDirPerTest('troupe-jail-');
const SECRET = 'jail-sentinel-7a1c';

const LAYOUT: HostLayout = {
  system: [{ path: '/usr' }, { path: '/bin', link: 'usr/bin' }, { path: '/lib64' }],
  etc: ['/etc/ld.so.cache', '/etc/passwd'],
  procReadOnly: ['/proc/sys'],
  procHidden: [
    { path: '/proc/kcore', dir: false },
    { path: '/proc/acpi', dir: true },
  ],
};

describe('the jail, as arguments', () => {
  it('every namespace new, no capabilities, no nested user namespaces, dies with troupe; the workspace the only writable bind', () => {
    const args = jailArgs({ workspace: '/data/ws', network: false }, LAYOUT);
    expect(args.slice(0, 9)).toEqual(['--unshare-all', '--unshare-user', '--disable-userns', '--cap-drop', 'ALL', '--die-with-parent', '--new-session', '--hostname', 'jail']);
    expect(args).not.toContain('--share-net');
    const pairs = (flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
    expect(pairs('--bind')).toEqual(['/data/ws']);
    expect(pairs('--ro-bind')).toEqual(['/usr', '/lib64', '/etc/ld.so.cache', '/etc/passwd', '/proc/sys', '/dev/null']);
    expect(pairs('--tmpfs')).toEqual(['/proc/acpi', '/dev/shm', '/tmp']);
    expect(args.join(' ')).toContain(`--size ${JAIL_TMP_BYTES} --tmpfs /tmp`);
    expect(args.join(' ')).toContain(`--dev /dev --size ${JAIL_SHM_BYTES} --tmpfs /dev/shm --remount-ro /dev`);
    expect(args.slice(-7)).toEqual(['--bind', '/data/ws', '/data/ws', '--chdir', '/data/ws', '--remount-ro', '/']);
    expect(jailArgs({ workspace: '/data/ws', network: true }, LAYOUT)).toContain('--share-net');
  });

  it("a subdirectory workspace of a clone sees its top read-only and the top's .git writable", () => {
    const args = jailArgs({ workspace: '/data/top/src', top: '/data/top', network: false }, LAYOUT).join(' ');
    expect(args).toContain('--ro-bind /data/top /data/top --bind-try /data/top/.git /data/top/.git --bind /data/top/src /data/top/src');
  });

  it('PATH keeps only system directories the jail shows, never the workspace; a workspace holding system directories is refused', () => {
    const spec = { workspace: '/usr/src/ws', network: false };
    expect(jailPath('/root/.cargo/bin:relative:/usr/local/bin:/usr/src/ws/bin:/usr/bin:/bin:/usr/bin', spec, LAYOUT)).toBe('/usr/local/bin:/usr/bin:/bin');
    expect(jailPath('/opt/x', spec, LAYOUT)).toBe('/usr/local/bin:/usr/bin:/bin');
    expect(unjailable({ workspace: '/', network: false }, LAYOUT)).toBe('the workspace / holds /usr; commands run only in a directory of their own');
    expect(unjailable({ workspace: '/tmp', network: false }, LAYOUT)).toMatch(/holds \/tmp/);
    expect(unjailable({ workspace: '/tmp/ws', network: false }, LAYOUT)).toBeNull();
  });

  it("this machine's layout shows no secrets of /etc", async () => {
    const layout = await readHostLayout();
    for (const secret of ['/etc/shadow', '/etc/gshadow', '/etc/ssh', '/etc/ssl/private', '/etc/sudoers', '/etc/gitconfig', '/etc/npmrc', '/etc/environment', '/etc/machine-id'])
      expect(layout.etc).not.toContain(secret);
    expect(layout.system.map((s) => s.path)).toContain('/usr');
  });
});

describe.skipIf(bwrapMissing)('the jail, running', () => {
  let base: string;
  let ws: string;
  let outside: string;
  beforeEach(() => {
    base = temp();
    ws = join(base, 'ws');
    outside = join(base, 'outside');
    mkdirSync(ws);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), SECRET);
  });

  const run = (command: string, commands: CommandPolicy = { mode: 'allow', allow: ['sh', 'cat', 'ls', 'touch', 'node', 'unshare'] }, options: Partial<ToolsetOptions> = {}) =>
    createToolset({ workspace: ws, commands, ...options }).run({ name: 'run_command', arguments: JSON.stringify({ command }) });

  it('writes land in the workspace only: system directories, /etc, the root and the directory around the workspace are not writable', async () => {
    const before = fingerprint(base);
    const result = await run(`sh -c 'touch /usr/x /etc/x /x ${outside}/x ../x 2>&1; echo in > inside.txt; ls ..; cat ${outside}/secret.txt 2>&1; ls /'`);
    expect(result.content).toMatch(/touch: cannot touch '\/usr\/x': Read-only file system/);
    expect(result.content).toMatch(/cannot touch '\/etc\/x': Read-only file system/);
    expect(result.content).toMatch(/cannot touch '\/x': Read-only file system/);
    expect(result.content).toMatch(new RegExp(`cannot touch '${outside}/x': No such file or directory`));
    expect(result.content).not.toContain(SECRET);
    expect(readFileSync(join(ws, 'inside.txt'), 'utf8')).toBe('in\n');
    const { 'ws/inside.txt': written, ...rest } = fingerprint(base);
    expect(written).toBeDefined();
    expect({ ...rest, 'ws/inside.txt': written }).toEqual({ ...before, 'ws/inside.txt': written });
    expect(existsSync(join(base, 'x'))).toBe(false);
    // The root holds only what the jail binds (every stderr line above goes to stdout, so `ls /` prints last).
    expect(result.content.trim().split('\n').slice(-9).join(' ')).toMatch(/^bin dev etc lib( lib64)? proc (sbin )?tmp usr/);
  });

  it("/etc holds no secrets, /proc shows only the jail's processes, root has no capabilities and cannot change kernel settings", async () => {
    const current = readFileSync('/proc/sys/kernel/core_uses_pid', 'utf8').trim();
    const result = await run(
      `sh -c 'cat /etc/shadow; ls /etc/ssh; cat /etc/passwd | head -1; grep CapEff /proc/self/status; echo ${current} > /proc/sys/kernel/core_uses_pid; unshare -U true; ls /proc | grep -c "^[0-9]"; cat /proc/1/comm'`,
    );
    expect(result.content).toMatch(/cat: \/etc\/shadow: No such file or directory/);
    expect(result.content).toMatch(/ls: cannot access '\/etc\/ssh': No such file or directory/);
    expect(result.content).toMatch(/^root:x:0:0/m);
    expect(result.content).toMatch(/^CapEff:\s+0000000000000000$/m);
    expect(result.content).toMatch(/core_uses_pid: Read-only file system/);
    expect(result.content).toMatch(/unshare: unshare failed/);
    // bwrap as the namespace's init, sh, ls and grep (or fewer): never troupe, never the host's processes.
    const count = Number(/^(\d+)$/m.exec(result.content)?.[1]);
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(5);
    // stdout and stderr come through two pipes, so the lines of the two may interleave in any order: not "last line".
    expect(result.content).toMatch(/^bwrap$/m);
  });

  it('programs outside the system directories are not found, even when PATH names them', async () => {
    mkdirSync(join(base, 'bin'));
    writeFileSync(join(base, 'bin', 'tool'), '#!/bin/sh\necho ran\n', { mode: 0o755 });
    const result = await run('tool', { mode: 'allow', allow: ['tool'] }, { path: `${join(base, 'bin')}:/usr/bin:/bin` });
    expect(result.content).toBe('Error: program "tool" was not found on PATH');
  });

  it("a workspace in a subdirectory of a git clone: git works there, the clone's .git is writable, the rest of the clone read-only", async () => {
    const repo = join(base, 'repo');
    mkdirSync(join(repo, 'src'), { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(repo, 'README.md'), 'top\n');
    writeFileSync(join(repo, 'src', 'a.txt'), 'a\n');
    git('add', '.');
    git('commit', '-q', '-m', 'start');
    const made = await createWorkspace({ root: join(base, 'session'), name: 'sub', from: join(repo, 'src'), git: true });
    expect(made.dir).toBe(join(made.home, 'src'));
    const tools = createToolset({ workspace: made.dir, top: made.home, commands: { mode: 'allow', allow: ['git', 'sh'] } });
    const cmd = (command: string) => tools.run({ name: 'run_command', arguments: JSON.stringify({ command }) });
    writeFileSync(join(made.dir, 'b.txt'), 'b\n');
    expect((await cmd('git status --porcelain')).content).toBe('exit code 0\n?? src/b.txt\n');
    expect((await cmd('git -c user.name=a -c user.email=a@example.com commit -q -a -m two --allow-empty')).content).toBe('exit code 0\n(no output)');
    expect((await cmd(`sh -c 'echo x > ${made.home}/README.md'`)).content).toMatch(/Read-only file system/);
    expect(readFileSync(join(made.home, 'README.md'), 'utf8')).toBe('top\n');
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: made.home, encoding: 'utf8' })).toBe('two\nstart\n');
  });

  it('the private /tmp is bounded (it is memory)', async () => {
    const result = await run(`sh -c 'df -k /tmp | tail -1'`, { mode: 'allow', allow: ['sh'] });
    expect(result.content).toMatch(new RegExp(`^exit code 0\\ntmpfs\\s+${JAIL_TMP_BYTES / 1024}\\s`));
  });

  // probe15, hostile: bubblewrap's /dev is a writable memory file system of half the machine's memory; a command wrote
  // past the bounded /tmp there (/dev/shm, or /dev itself), holding the machine's memory until it ended.
  it('/dev is read-only but its devices, and /dev/shm is writable and bounded (it is memory too)', async () => {
    const policy = { mode: 'allow' as const, allow: ['sh'] };
    expect((await run(`sh -c 'echo x > /dev/filler'`, policy)).content).toMatch(/Read-only file system/);
    const shm = await run(`sh -c 'df -k /dev/shm | tail -1; head -c ${2 * JAIL_SHM_BYTES} /dev/zero > /dev/shm/filler; echo x > /dev/null && echo null-ok'`, policy);
    expect(shm.content).toMatch(new RegExp(`^exit code 0\\ntmpfs\\s+${JAIL_SHM_BYTES / 1024}\\s`));
    expect(shm.content).toMatch(/No space left on device/);
    expect(shm.content).toMatch(/null-ok/);
  });

  it('a workspace that holds the system is refused', async () => {
    const result = await createToolset({ workspace: '/', commands: { mode: 'allow', allow: ['ls'] } }).run({ name: 'run_command', arguments: JSON.stringify({ command: 'ls' }) });
    expect(result.content).toMatch(/^Error: the workspace \/ holds \/usr; commands run only in a directory of their own$/);
  });
});

describe('without a jail, nothing runs', () => {
  it('no bubblewrap: run_command is refused with one line naming what is missing', async () => {
    const ws = temp();
    const result = await createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['touch'] }, bwrap: join(ws, 'no-such-bwrap') }).run({
      name: 'run_command',
      arguments: JSON.stringify({ command: 'touch ran' }),
    });
    expect(result.content).toBe('Error: bubblewrap (bwrap) is not installed; install it (apt-get install bubblewrap) so commands can run in a sandbox');
    expect(existsSync(join(ws, 'ran'))).toBe(false);
  });

  it('a bubblewrap that cannot create namespaces: refused with its message each time, the command never given to it', async () => {
    const base = temp();
    const ws = join(base, 'ws');
    mkdirSync(ws);
    const log = join(base, 'calls.log');
    const bwrap = join(base, 'bwrap');
    // Stands in for bwrap where user namespaces are off; if it were ever asked to run the command it would log that too.
    writeFileSync(
      bwrap,
      `#!/bin/sh\necho "$@" >> "${log}"\necho "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces" >&2\nexit 1\n`,
      { mode: 0o755 },
    );
    const tools = createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['touch'] }, bwrap });
    for (let i = 0; i < 2; i++) {
      const result = await tools.run({ name: 'run_command', arguments: JSON.stringify({ command: 'touch ran' }) });
      expect(result.content).toBe(
        'Error: bubblewrap cannot set up the sandbox here (bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces); commands are not run without it',
      );
    }
    // Asked twice (a failure is checked again), each time to run `true` around an empty probe directory, never `touch`.
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call).toMatch(/troupe-jail-probe-.* -- true$/);
    expect(existsSync(join(ws, 'ran'))).toBe(false);
    expect(execFileSync('ls', [ws], { encoding: 'utf8' })).toBe('');
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandCgroup, controllerHome, oomKills, sweepLeftOver } from '../../src/tools/jail-cgroup.js';
import { processInfo } from '../../src/tools/process-info.js';
import { createToolset } from '../../src/tools/toolset.js';
import { bwrapMissing } from '../helpers/jail.js';
import { until } from '../helpers/serve.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// probe14: the kernel holds no process of root (uid 0) to RLIMIT_NPROC, in any user namespace, so a jailed command of
// troupe run as root (containers, CI) could fork without end: the jail's pid namespace kills them all when the
// command ends, but bounds nothing while it runs. Where troupe may make a pids cgroup, each command runs in one.
const temp = tempDirPerTest('troupe-jail-cgroup-');
const asRoot = process.getuid?.() === 0;
const home = controllerHome(readFileSync('/proc/self/mounts', 'utf8'), readFileSync('/proc/self/cgroup', 'utf8'), 'pids');
const memoryHome = controllerHome(readFileSync('/proc/self/mounts', 'utf8'), readFileSync('/proc/self/cgroup', 'utf8'), 'memory');
// A cgroup a troupe process that is gone left (it exited before its last command's cgroup could be removed).
const gone = spawnSync(process.execPath, ['-e', '0']).pid;
const leftOver = home ? join(home.dir, `troupe-${gone}-1`) : null;
if (leftOver) {
  try {
    mkdirSync(leftOver);
  } catch {
    // Not allowed here: the tests below are skipped.
  }
}
const probe = await commandCgroup({ processes: 1, memoryBytes: 64 * 1024 ** 2 });
// Whether this process may make a memory cgroup (found apart from troupe's, so the test runs where troupe should use one).
const memoryGroup = (() => {
  if (!memoryHome) return false;
  const dir = join(memoryHome.dir, `troupe-test-${process.pid}`);
  try {
    mkdirSync(dir);
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
})();
await probe?.release();

describe('controllerHome', () => {
  it('finds the pids or memory hierarchy of cgroup v1, else cgroup v2, from the mounts and this process’s cgroups', () => {
    const v1Mounts = 'cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\ncgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n';
    const cgroups = '8:pids:/ci/job\n4:memory:/x\n0::/user.slice\n';
    expect(controllerHome(v1Mounts, cgroups, 'pids')).toEqual({ dir: '/sys/fs/cgroup/pids/ci/job', v2: false });
    expect(controllerHome(v1Mounts, cgroups, 'memory')).toEqual({ dir: '/sys/fs/cgroup/memory/x', v2: false });
    expect(controllerHome('cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n', '0::/user.slice/app.scope\n', 'memory')).toEqual({ dir: '/sys/fs/cgroup/user.slice/app.scope', v2: true });
    expect(controllerHome('proc /proc proc rw 0 0\n', '', 'pids')).toBeNull();
  });

  it('reads how many processes the kernel killed for memory (v1 memory.oom_control, v2 memory.events)', () => {
    expect(oomKills('oom_kill_disable 0\nunder_oom 0\noom_kill 2\n')).toBe(2);
    expect(oomKills('low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\n')).toBe(1);
    expect(oomKills('')).toBe(0);
  });
});

describe.skipIf(bwrapMissing || !asRoot || probe === null)('a jailed command of troupe run as root', () => {
  it('cannot start more processes than its limit (a pids cgroup of its own), which is removed after', async () => {
    const ws = temp();
    const tools = createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['sh'] }, limits: { commandProcesses: 16 } });
    const bomb = `sh -c 'i=0; while [ $i -lt 40 ]; do sleep 1 & i=$((i+1)); done; wait'`;
    const result = await tools.run({ name: 'run_command', arguments: JSON.stringify({ command: bomb }) });
    expect(result.content).toMatch(/Cannot fork|Resource temporarily unavailable/);
    await until(async () => readdirSync(home!.dir).every((name) => !name.startsWith(`troupe-${process.pid}-`)), 'the command’s cgroup to be removed');
    // What a troupe process that is gone left was removed when this one first made a cgroup.
    expect(existsSync(leftOver!)).toBe(false);
    // An ordinary command runs as before.
    expect((await tools.run({ name: 'run_command', arguments: JSON.stringify({ command: "sh -c 'echo hi'" }) })).content).toBe('exit code 0\nhi\n');
  });
});

// Hostile: RLIMIT_DATA bounds each process of a command (4 GiB), not the command: two processes each under it
// (a build's workers, or a sh starting many) held the machine's memory together. A memory cgroup holds them all.
describe.skipIf(bwrapMissing || !asRoot || !memoryGroup)('a jailed command whose processes together pass its memory limit', () => {
  it('has one killed by the kernel, and the answer says why; its cgroups are removed after', async () => {
    const ws = temp();
    const MiB = 1024 ** 2;
    const tools = createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['sh'] }, limits: { commandMemoryBytes: 1024 * MiB, commandTotalMemoryBytes: 320 * MiB } });
    // Two processes, each holding 200 MiB (touched, so resident): under the per-process limit, together past 320 MiB.
    // Each says it holds its memory (a file named by its argument and pid), waits until both do (20 s at most), then
    // prints what it held: both print only if both held 200 MiB at once.
    const hold = (tag: string) =>
      `node -e 'const fs = require(\\"fs\\"); const b = Buffer.alloc(200 * 1024 * 1024, 1); const me = process.argv[1]; fs.writeFileSync(me + process.pid, me); const s = new Int32Array(new SharedArrayBuffer(4)); const end = Date.now() + (me === \\"alone-\\" ? 0 : 20000); while (fs.readdirSync(\\".\\").filter((n) => n.startsWith(me)).length < 2 && Date.now() < end) Atomics.wait(s, 0, 0, 20); console.log(b.length)' ${tag}`;
    const both = `sh -c "${hold('pair-')} & ${hold('pair-')} & wait"`;
    const result = await tools.run({ name: 'run_command', arguments: JSON.stringify({ command: both }) });
    expect(result.content.match(/209715200/g)?.length ?? 0).toBeLessThan(2);
    expect(result.content).toMatch(/its processes passed the 335\.5 MB they may hold together \(TROUPE_COMMAND_MAX_MEMORY_BYTES\), and the kernel killed one/);
    await until(async () => readdirSync(memoryHome!.dir).every((name) => !name.startsWith(`troupe-${process.pid}-`)), 'the command’s memory cgroup to be removed');
    // One process alone fits.
    const one = await tools.run({ name: 'run_command', arguments: JSON.stringify({ command: `sh -c "${hold('alone-')}"` }) });
    expect(one.content).toBe('exit code 0\n209715200\n');
  }, 60_000);
});

// probe16: what else a command's processes hold in memory is charged to its cgroup too — the jail's /tmp (a memory file
// system), socket and pipe buffers (kernel memory), many processes each holding a little — and /dev/shm is bounded
// on its own. Each script is kept as the hostile input; memory, not time, decides every outcome.
describe.skipIf(bwrapMissing || !asRoot || !memoryGroup)('the memory a jailed command holds in other ways', () => {
  const MiB = 1024 ** 2;
  const KILLED = /its processes passed the [\d.]+ MB they may hold together \(TROUPE_COMMAND_MAX_MEMORY_BYTES\), and the kernel killed one/;
  const run = async (command: string, totalMiB: number, files: Record<string, string> = {}) => {
    const ws = temp();
    for (const [name, text] of Object.entries(files)) writeFileSync(join(ws, name), text);
    const tools = createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['sh', 'perl', 'dd'] }, limits: { commandTotalMemoryBytes: totalMiB * MiB } });
    return (await tools.run({ name: 'run_command', arguments: JSON.stringify({ command }) })).content;
  };
  // Fills buffers of `kind` (socketpair or pipe) 64 KiB at a time, without reading, until each is full.
  const buffers = (kind: 'socketpair' | 'pipe') =>
    `use Socket; use Fcntl; my @k; my $t = 0; for my $i (1..3000) { ${kind === 'pipe' ? 'pipe(my $r, my $w) or last;' : 'socketpair(my $r, my $w, AF_UNIX, SOCK_STREAM, PF_UNSPEC) or last;'} fcntl($w, F_SETFL, fcntl($w, F_GETFL, 0) | O_NONBLOCK); my $buf = "x" x 65536; while (1) { my $n = syswrite($w, $buf); last unless defined $n && $n > 0; $t += $n; } push @k, $r, $w; } print int($t / 1048576), " MiB held\n";`;

  it("the jail's /tmp filled past the limit: the kernel kills the writer", async () => {
    expect(await run(`sh -c 'dd if=/dev/zero of=/tmp/f bs=1M count=400 2>/dev/null; echo after'`, 128)).toMatch(KILLED);
  });

  it('/dev/shm holds 64 MiB at most, whatever the memory limit', async () => {
    expect(await run(`sh -c 'dd if=/dev/zero of=/dev/shm/f bs=1M count=100 2>&1 | grep -c "No space left"'`, 1024)).toMatch(/^exit code 0\n1\n/);
  });

  it('socket and pipe buffers filled without reading count: the kernel kills the holder', async () => {
    expect(await run('perl s.pl', 128, { 's.pl': buffers('socketpair') })).toMatch(KILLED);
    expect(await run('perl p.pl', 32, { 'p.pl': buffers('pipe') })).toMatch(KILLED);
  });

  it('many processes each holding a little, together past the limit: some are killed, never all held', async () => {
    // 60 children of 5 MiB each (300 MiB) hold it until the parent has forked them all (their pipe's end closes).
    const forks = `pipe(my $r, my $w) or die; my @kids; for my $i (1..60) { my $p = fork(); last unless defined $p; if ($p == 0) { close $w; my $x = "y" x (5 * 1048576); my $l = <$r>; exit 0 } push @kids, $p } close $w; my $bad = 0; for (@kids) { waitpid($_, 0); $bad++ if $? != 0 } print scalar(@kids), " children, ", ($bad > 0 ? "some" : "none"), " killed\n";`;
    const result = await run('perl f.pl', 128, { 'f.pl': forks });
    expect(result).toMatch(KILLED);
    expect(result).toContain('60 children, some killed');
  });
});

describe('sweepLeftOver', () => {
  it('removes the cgroup a troupe process left when that process is a zombie (exited, never reaped): kill(pid, 0) still finds it', async () => {
    // sh runs `sleep 0` in the background, then becomes `sleep 30`, which never reaps it: a zombie until sleep 30 ends.
    const parent = spawn('/bin/sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()))));
      await until(async () => processInfo(zombie).state === 'zombie', 'the background sleep to exit unreaped');
      const groups = temp();
      mkdirSync(join(groups, `troupe-${zombie}-1`));
      // Another process's cgroup (this one, running) stays.
      mkdirSync(join(groups, `troupe-${process.ppid}-1`));
      await sweepLeftOver(groups);
      expect(readdirSync(groups)).toEqual([`troupe-${process.ppid}-1`]);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandCgroup, pidsCgroupHome, sweepLeftOver } from '../../src/tools/jail-cgroup.js';
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
const home = pidsCgroupHome(readFileSync('/proc/self/mounts', 'utf8'), readFileSync('/proc/self/cgroup', 'utf8'));
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
const probe = await commandCgroup(1);
await probe?.release();

describe('pidsCgroupHome', () => {
  it('finds the pids hierarchy of cgroup v1, else cgroup v2, from the mounts and this process’s cgroups', () => {
    const v1Mounts = 'cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\ncgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n';
    const cgroups = '8:pids:/ci/job\n4:memory:/x\n0::/user.slice\n';
    expect(pidsCgroupHome(v1Mounts, cgroups)).toEqual({ dir: '/sys/fs/cgroup/pids/ci/job', v2: false });
    expect(pidsCgroupHome('cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n', '0::/user.slice/app.scope\n')).toEqual({ dir: '/sys/fs/cgroup/user.slice/app.scope', v2: true });
    expect(pidsCgroupHome('proc /proc proc rw 0 0\n', '')).toBeNull();
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

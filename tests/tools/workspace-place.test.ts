import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapMissing } from '../helpers/jail.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { createToolset } from '../../src/tools/toolset.js';

// probe13: another local user who can change a folder holding a session's workspaces (a shared data dir such as
// TROUPE_DATA_DIR=/tmp/team) swapped an agent's workspace for a link to this user's home between two commands:
// bubblewrap bound the link's target read-write, and the agent's next command wrote there.
const temp = tempDirPerTest('troupe-workspace-place-');
const asRoot = process.getuid?.() === 0;

/** A data dir with one workspace (`<data>/runs/s/workspaces/coder`), a home of this user's beside it, and the coder's tools. */
function setUp() {
  const base = temp();
  const data = join(base, 'data');
  const ws = join(data, 'runs', 's', 'workspaces', 'coder');
  mkdirSync(ws, { recursive: true });
  const home = join(base, 'home');
  mkdirSync(home);
  const tools = createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['touch'] } });
  const run = (command: string) => tools.run({ name: 'run_command', arguments: JSON.stringify({ command }) });
  return { base, data, ws, home, run };
}

describe.skipIf(bwrapMissing)('run_command runs only in the real workspace, in folders no other user can change', () => {
  it('a workspace swapped for a link to the user’s home between two commands: the next is refused, nothing is written there', async () => {
    const { base, ws, home, run } = setUp();
    expect((await run('touch first')).content).toBe('exit code 0\n(no output)');
    renameSync(ws, join(base, 'moved'));
    symlinkSync(home, ws);
    expect((await run('touch pwned')).content).toBe(`Error: the workspace ${ws} is no longer the directory it was (it is gone, or a link now); commands are not run through it`);
    expect(readdirSync(home)).toEqual([]);
  });

  it('a folder above the workspace that others can write (world-writable, not sticky): commands are refused in one line naming it', async () => {
    const { data, ws, run } = setUp();
    chmodSync(join(data, 'runs'), 0o777);
    expect((await run('touch x')).content).toBe(
      `Error: the workspace ${ws} lies in ${join(data, 'runs')}, which another user can change (they could swap the workspace for a link while a command starts); commands run only in folders that you or root alone can write — keep TROUPE_DATA_DIR there`,
    );
    expect(existsSync(join(ws, 'x'))).toBe(false);
    chmodSync(join(data, 'runs'), 0o755);
    expect((await run('touch x')).content).toBe('exit code 0\n(no output)');
  });

  it.skipIf(!asRoot)('a folder above the workspace owned by another user: refused; writable by this user’s own group, or root’s and sticky (as /tmp): runs', async () => {
    const { data, ws, run } = setUp();
    chownSync(data, 65534, 65534);
    expect((await run('touch x')).content).toMatch(new RegExp(`^Error: the workspace ${ws} lies in ${data}, which another user can change`));
    chownSync(data, 0, process.getgid!());
    chmodSync(data, 0o775);
    expect((await run('touch x')).content).toBe('exit code 0\n(no output)');
    chownSync(data, 0, 65534);
    expect((await run('touch y')).content).toMatch(/^Error: the workspace .* lies in .*data, which another user can change/);
    chmodSync(data, 0o1777);
    expect((await run('touch z')).content).toBe('exit code 0\n(no output)');
  });
});

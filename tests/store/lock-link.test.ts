import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { holderPathOf, lockReleased, readLock } from '../../src/store/lock.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { BRIEF, ENV, uninterrupted } from './support.js';

const temp = tempDirPerTest('troupe-lock-link-');

/** A pid no process has any more (a child that ran and was reaped). */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

/** A session created and held open (not started). */
const held = (store: LowdbStore, id: string) => openSession({ team: studio(), model: new DemoModel(), store, id, env: ENV, brief: BRIEF, clock: () => Date.UTC(2026, 0, 1) });

/** The holder files in a sessions directory. */
const holders = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('.lock-holder-'));

describe("a new session's lock is a link to its process's holder file (its creation makes no inode for the lock)", () => {
  it('two sessions created: both locks are the one holder file, naming this process; another store of the process is refused', async () => {
    const store = new LowdbStore(temp());
    const a = await held(store, 'a');
    const b = await held(store, 'b');
    const [holder] = holders(store.dir);
    expect(holder).toBeDefined();
    const ino = lstatSync(join(store.dir, holder!)).ino;
    expect(lstatSync(store.lockOf('a')).ino).toBe(ino);
    expect(lstatSync(store.lockOf('b')).ino).toBe(ino);
    expect(readLock(store.lockOf('a'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(store.lockedBy('b')).toBe(process.pid);
    // Two documents, two journals, one holder: five inodes for two sessions, not seven.
    expect(new Set(readdirSync(store.dir).map((f) => lstatSync(join(store.dir, f)).ino)).size).toBe(5);
    await expect(new LowdbStore(store.dir.replace(/\/sessions$/, '')).open('a')).rejects.toThrow(/open in process/);
    await a.stop();
    await b.stop();
  });

  it('closed, a linked lock becomes a file of its own saying released; the other session stays held; opened again, the file is taken over in place', async () => {
    const store = new LowdbStore(temp());
    const a = await held(store, 'a');
    const b = await held(store, 'b');
    a.start(BRIEF);
    await a.settled();
    await a.stop();
    const lock = lstatSync(store.lockOf('a'));
    expect(lock.nlink).toBe(1);
    expect(lockReleased(readLock(store.lockOf('a'))!)).toBe(true);
    expect(store.lockedBy('a')).toBeNull();
    expect(readLock(store.lockOf('b'))).toMatchObject({ pid: process.pid });
    expect(store.lockedBy('b')).toBe(process.pid);
    const { handle } = await store.open('a');
    expect(lstatSync(store.lockOf('a')).ino).toBe(lock.ino);
    expect(readLock(store.lockOf('a'))).toMatchObject({ pid: process.pid });
    await handle.close();
    expect(lstatSync(store.lockOf('a')).ino).toBe(lock.ino);
    await b.stop();
  });

  it("taken over from a process that is gone, a linked lock's shared record is not written: the gone process's other lock still names it, and its holder goes with its last lock", async () => {
    const store = new LowdbStore(temp());
    await uninterrupted(store, 'a');
    await uninterrupted(store, 'b');
    const dead = `${deadPid()} 00000a000001 - ${hostname()}\n`;
    const holder = holderPathOf(store.dir, dead)!;
    writeFileSync(holder, dead);
    for (const id of ['a', 'b']) {
      rmSync(store.lockOf(id));
      linkSync(holder, store.lockOf(id));
    }
    const a = await store.open('a');
    expect(readLock(store.lockOf('a'))).toMatchObject({ pid: process.pid });
    expect(readFileSync(store.lockOf('b'), 'utf8')).toBe(dead);
    expect(existsSync(holder)).toBe(true);
    const b = await store.open('b');
    expect(readLock(store.lockOf('b'))).toMatchObject({ pid: process.pid });
    expect(existsSync(holder)).toBe(false);
    await a.handle.close();
    await b.handle.close();
  });

  it('a process that exits holding linked locks leaves neither its locks nor its holder: its sessions open', async () => {
    const data = temp();
    const child = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'tests', 'store', 'lock-exit-child.ts'), data, 'x', 'y'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(child.stdout, child.stderr).toContain('READY');
    const store = new LowdbStore(data);
    expect(holders(store.dir)).toEqual([]);
    expect(existsSync(store.lockOf('x'))).toBe(false);
    const { handle } = await store.open('y');
    expect(handle.doc.brief).toBe(BRIEF);
    await handle.close();
  });
});

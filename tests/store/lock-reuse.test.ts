import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { lockReleased, readLock, SessionLockedError } from '../../src/store/lock.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { uninterrupted } from './support.js';

const temp = tempDirPerTest('troupe-lock-reuse-');

/** A pid no process has any more (a child that ran and was reaped). */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('a session lock released in place and taken over in place (no inode freed and made at every close and open)', () => {
  it('closed, its lock says released; opened, the same file names this process; a second open while held is refused', async () => {
    const store = new LowdbStore(temp());
    await uninterrupted(store, 's');
    const lock = store.lockOf('s');
    expect(lockReleased(readLock(lock)!)).toBe(true);
    expect(store.lockedBy('s')).toBeNull();
    const inode = statSync(lock).ino;
    const { handle } = await store.open('s');
    expect(statSync(lock).ino).toBe(inode);
    expect(readLock(lock)).toMatchObject({ pid: process.pid, host: hostname() });
    expect(store.lockedBy('s')).toBe(process.pid);
    await expect(new LowdbStore(store.dir.replace(/\/sessions$/, '')).open('s')).rejects.toBeInstanceOf(SessionLockedError);
    await handle.close();
    expect(statSync(lock).ino).toBe(inode);
    expect(lockReleased(readLock(lock)!)).toBe(true);
  });

  it('a takeover killed at each of its steps leaves a lock the next open takes (moved aside; rewritten aside; linked back)', async () => {
    const store = new LowdbStore(temp());
    await uninterrupted(store, 'k');
    const lock = store.lockOf('k');
    const released = readFileSync(lock, 'utf8');
    const dead = `${deadPid()} 000000000001 - ${hostname()}\n`;
    const states: [string, () => void][] = [
      ['moved aside', () => renameSync(lock, `${lock}.stale-1-0`)],
      [
        'rewritten aside',
        () => {
          renameSync(lock, `${lock}.stale-1-0`);
          writeFileSync(`${lock}.stale-1-0`, dead);
        },
      ],
      [
        'linked back',
        () => {
          renameSync(lock, `${lock}.stale-1-0`);
          writeFileSync(`${lock}.stale-1-0`, dead);
          linkSync(`${lock}.stale-1-0`, lock);
        },
      ],
    ];
    for (const [step, kill] of states) {
      writeFileSync(lock, released);
      kill();
      const { handle } = await store.open('k');
      expect(readLock(lock)?.pid, step).toBe(process.pid);
      await handle.close();
      expect(existsSync(lock), step).toBe(true);
      expect(lockReleased(readLock(lock)!), step).toBe(true);
    }
  });

  it('discarded, the session takes its lock file with it', async () => {
    const store = new LowdbStore(temp());
    await uninterrupted(store, 'd');
    const { handle } = await store.open('d');
    await handle.discard!();
    expect(existsSync(store.lockOf('d'))).toBe(false);
    expect(existsSync(store.slotsOf('d'))).toBe(false);
  });
});

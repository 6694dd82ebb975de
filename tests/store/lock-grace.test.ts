import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { acquireLock, acquireNewLock, LOCK_WRITE_GRACE_MS, lockHolder, refreshLockIfDue, releaseLock, SessionLockedError } from '../../src/store/lock.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { writesSettled } from '../../src/store/writes-in-flight.js';
import { fixedClock, studio } from '../helpers/team.js';
import { ENV } from './support.js';

let dir = '';
const locks: string[] = [];
afterEach(() => {
  for (const lock of locks.splice(0)) releaseLock(lock);
  rmSync(dir, { recursive: true, force: true });
});

function lockPath(): string {
  dir = mkdtempSync(join(tmpdir(), 'troupe-lock-grace-'));
  const lock = join(dir, 's.lock');
  locks.push(lock);
  return lock;
}

// A lock without its whole record: just created and not yet written, or cut short.
const INCOMPLETE = ['', `${process.pid} 0123`];

describe('a lock file being written', () => {
  it('an empty or partial lock file just created is held, by no process it can name yet', () => {
    const lock = lockPath();
    for (const text of INCOMPLETE) {
      writeFileSync(lock, text);
      const mtime = statSync(lock).mtimeMs;
      expect(() => acquireLock(lock, 's', { now: () => mtime })).toThrow(SessionLockedError);
      expect(() => acquireLock(lock, 's', { now: () => mtime })).toThrow('session s is being opened by another process — close it there first, or try again in a few seconds');
      expect(readFileSync(lock, 'utf8')).toBe(text);
      expect(lockHolder(lock)).toBeNull();
    }
  });

  it('an empty or partial lock file is held up to the grace period and taken over once older', () => {
    const lock = lockPath();
    for (const text of INCOMPLETE) {
      writeFileSync(lock, text);
      const mtime = statSync(lock).mtimeMs;
      expect(() => acquireLock(lock, 's', { now: () => mtime + LOCK_WRITE_GRACE_MS - 1 })).toThrow(SessionLockedError);
      acquireLock(lock, 's', { now: () => mtime + LOCK_WRITE_GRACE_MS + 1 });
      expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^${process.pid} [0-9a-f]{12} \\S+ \\S+\\n$`));
      releaseLock(lock);
    }
  });
});

describe('refreshing a held lock', () => {
  it('refreshLockIfDue touches the lock once an interval (staleMs / 4) has passed since the last refresh, not before', () => {
    const lock = lockPath();
    const t0 = 1_800_000_000_000;
    acquireLock(lock, 's', { staleMs: 40_000, now: () => t0 });
    const old = new Date(t0 - 100_000);
    utimesSync(lock, old, old);
    refreshLockIfDue(lock, t0 + 9_999);
    expect(statSync(lock).mtimeMs).toBe(old.getTime());
    refreshLockIfDue(lock, t0 + 10_000);
    expect(statSync(lock).mtimeMs).toBe(t0 + 10_000);
    // The next one is due an interval after that refresh.
    refreshLockIfDue(lock, t0 + 19_999);
    expect(statSync(lock).mtimeMs).toBe(t0 + 10_000);
    refreshLockIfDue(lock, t0 + 20_000);
    expect(statSync(lock).mtimeMs).toBe(t0 + 20_000);
  });

  it("a session's checkpoints do not touch its lock more than once an interval", async () => {
    dir = mkdtempSync(join(tmpdir(), 'troupe-lock-grace-'));
    const store = new LowdbStore(dir);
    const session = await openSession({ team: studio(), model: new DemoModel(), store, id: 'busy', env: ENV, clock: fixedClock() });
    const lock = store.lockOf('busy');
    const old = new Date(Math.floor(Date.now() / 1000) * 1000 - 1_000);
    utimesSync(lock, old, old);
    session.start('A lighthouse keeper game');
    await session.settled();
    await writesSettled();
    // The session wrote checkpoints since (its document is newer), and none of them touched the lock.
    expect(statSync(store.pathOf('busy')).mtimeMs).toBeGreaterThan(old.getTime());
    expect(statSync(lock).mtimeMs).toBe(old.getTime());
    await session.stop();
  });
});

describe('creating a session', () => {
  /** A store in a new data directory holding one stopped session (so its sessions directory is made). */
  async function storeWithASession(): Promise<LowdbStore> {
    dir = mkdtempSync(join(tmpdir(), 'troupe-lock-grace-'));
    const store = new LowdbStore(dir);
    const session = await openSession({ team: studio(), model: new DemoModel(), store, id: 'first', env: ENV, clock: fixedClock() });
    await session.stop();
    return store;
  }
  const createTaken = (store: LowdbStore) => openSession({ team: studio(), model: new DemoModel(), store, id: 'taken', env: ENV, clock: fixedClock() });

  it('refuses an id whose journal is there without its document, and leaves the journal as it was', async () => {
    const store = await storeWithASession();
    const orphan = store.journalOf('taken');
    writeFileSync(orphan, 'left behind\n');
    await expect(createTaken(store)).rejects.toThrow(`session taken already exists in ${store.dir} — choose another id`);
    expect(readFileSync(orphan, 'utf8')).toBe('left behind\n');
  });

  it('refuses an id whose document is there without its journal, and leaves no journal of its own behind', async () => {
    const store = await storeWithASession();
    const document = store.pathOf('taken');
    writeFileSync(document, '{"an older session": true}');
    await expect(createTaken(store)).rejects.toThrow(`session taken already exists in ${store.dir} — choose another id`);
    expect(readFileSync(document, 'utf8')).toBe('{"an older session": true}');
    expect(existsSync(store.journalOf('taken'))).toBe(false);
    expect(existsSync(store.lockOf('taken'))).toBe(false);
  });
});

describe('taking the lock of a new session off the event loop', () => {
  it('of two takes of one lock at once in this process, exactly one holds it', async () => {
    const lock = lockPath();
    const results = await Promise.allSettled([acquireNewLock(lock, 's'), acquireNewLock(lock, 's')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(SessionLockedError);
    expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^${process.pid} [0-9a-f]{12} `));
    expect(lockHolder(lock)).toBe(process.pid);
  });

  it('a lock already there is decided as any open decides it: a live holder refuses, a dead one is taken over', async () => {
    const lock = lockPath();
    writeFileSync(lock, `1 0123456789ab\n`);
    await expect(acquireNewLock(lock, 's')).rejects.toThrow('session s is open in process 1 — close it there first');
    writeFileSync(lock, '999999999\n');
    await acquireNewLock(lock, 's');
    expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^${process.pid} [0-9a-f]{12} `));
  });

  it('gives each lock of this process its own nonce', async () => {
    const lock = lockPath();
    const nonces = new Set<string>();
    for (let i = 0; i < 3; i++) {
      await acquireNewLock(lock, 's');
      nonces.add(readFileSync(lock, 'utf8').split(' ')[1]!);
      releaseLock(lock);
    }
    expect(nonces.size).toBe(3);
  });
});

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LockPathError, refreshLock, SessionLockedError } from '../../src/store/lock.js';
import { parseProcStat, processInfo } from '../../src/tools/process-info.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { SESSION_SCHEMA_VERSION } from '../../src/store/session-file.js';
import { REPO_ROOT } from '../helpers/team.js';

const CLI = join(REPO_ROOT, 'dist', 'cli.js');
const ID = 'fixture-v1';
let dir = '';
let children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children = [];
  rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  dir = mkdtempSync(join(tmpdir(), 'troupe-lock-'));
  mkdirSync(join(dir, 'sessions'));
  copyFileSync(join(REPO_ROOT, 'tests', 'fixtures', 'sessions', 'v1.json'), join(dir, 'sessions', `${ID}.json`));
  return dir;
}

/** Another process that opens the session through the built store and keeps it open. */
function holder(data: string): Promise<ChildProcess> {
  const script = `import(${JSON.stringify(join(REPO_ROOT, 'dist', 'store', 'lowdb-store.js'))}).then(async (m) => {
    await new m.LowdbStore(${JSON.stringify(data)}).open(${JSON.stringify(ID)});
    process.stdout.write('open\\n');
    setInterval(() => {}, 1000);
  });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
  });
}

describe('one writer per session', () => {
  it('refuses a second process with "session X is open in process N", and takes over once the holder is killed', async () => {
    const data = dataDir();
    const child = await holder(data);
    const store = new LowdbStore(data);
    const refused = store.open(ID);
    await expect(refused).rejects.toBeInstanceOf(SessionLockedError);
    await expect(store.open(ID)).rejects.toThrow(`session ${ID} is open in process ${child.pid}`);
    expect((await store.list())[0]).toMatchObject({ id: ID, lockedBy: child.pid });

    // The CLI gives the same one-line error, exit 1, and the file is not touched.
    const before = readFileSync(join(data, 'sessions', `${ID}.json`));
    const cli = spawnSync(process.execPath, [CLI, 'resume', ID, '--demo'], { env: { ...process.env, TROUPE_DATA_DIR: data }, encoding: 'utf8' });
    expect(cli.status).toBe(1);
    expect(cli.stderr.trim()).toBe(`troupe: session ${ID} is open in process ${child.pid} — close it there first`);
    expect(readFileSync(join(data, 'sessions', `${ID}.json`)).equals(before)).toBe(true);

    // Killed without releasing: its lock is stale and the next open takes it over.
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(existsSync(join(data, 'sessions', `${ID}.lock`))).toBe(true);
    const { handle } = await store.open(ID);
    expect(
      readFileSync(join(data, 'sessions', `${ID}.lock`), 'utf8')
        .trim()
        .split(' ')[0],
    ).toBe(String(process.pid));
    await handle.close();
    // Released in place, not removed (see releasedText): no process holds it.
    expect(readFileSync(join(data, 'sessions', `${ID}.lock`), 'utf8').trim()).toBe('released');
    expect(store.lockedBy(ID)).toBeNull();
  });

  it('takes over a lock whose pid is gone, or garbage, but not one this process holds', async () => {
    const data = dataDir();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const lock = join(data, 'sessions', `${ID}.lock`);
    const store = new LowdbStore(data);
    for (const content of [`${gone.stdout}\n`, 'not a pid\n', `${process.pid}\n`]) {
      writeFileSync(lock, content);
      const { handle } = await store.open(ID);
      await expect(store.open(ID)).rejects.toThrow(`session ${ID} is open in process ${process.pid} (this one)`);
      await handle.close();
    }
  });

  it('records the start time and host in the lock', async () => {
    const data = dataDir();
    const { handle } = await new LowdbStore(data).open(ID);
    const [pid, nonce, start, host] = readFileSync(join(data, 'sessions', `${ID}.lock`), 'utf8')
      .trim()
      .split(' ');
    expect([pid, start, host]).toEqual([String(process.pid), processInfo(process.pid).startTime, hostname()]);
    expect(nonce).toMatch(/^[0-9a-f]{12}$/);
    await handle.close();
  });

  it('takes over a lock held by a zombie (a process that exited and was never reaped), in the new and the old format', async () => {
    const data = dataDir();
    // The parent forks a child that exits at once, prints its pid and never waits for it.
    const parent = spawn('python3', ['-c', 'import os, sys, time\npid = os.fork()\nif pid == 0:\n    os._exit(0)\nprint(pid, flush=True)\ntime.sleep(60)'], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(parent);
    const zombie = Number.parseInt(await new Promise<string>((r) => parent.stdout!.once('data', (d: Buffer) => r(d.toString()))), 10);
    for (let i = 0; i < 100 && processInfo(zombie).state !== 'zombie'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(processInfo(zombie).state).toBe('zombie');
    const start = parseProcStat(readFileSync(`/proc/${zombie}/stat`, 'utf8'))!.startTime;
    const lock = join(data, 'sessions', `${ID}.lock`);
    const store = new LowdbStore(data);
    for (const content of [`${zombie} 0123456789ab ${start} ${hostname()}\n`, `${zombie} 0123456789ab\n`, `${zombie}\n`]) {
      writeFileSync(lock, content);
      expect((await store.list())[0]).toMatchObject({ lockedBy: null });
      const { handle } = await store.open(ID);
      await handle.close();
    }
  });

  it('takes over a lock whose pid now belongs to an unrelated live process (another start time), but not one it cannot tell apart', async () => {
    const data = dataDir();
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(other);
    await new Promise((r) => other.once('spawn', r));
    const start = processInfo(other.pid!).startTime!;
    const lock = join(data, 'sessions', `${ID}.lock`);
    const store = new LowdbStore(data);
    writeFileSync(lock, `${other.pid} 0123456789ab ${BigInt(start) - 1n} ${hostname()}\n`);
    const { handle } = await store.open(ID);
    await handle.close();
    // The same pid with its own start time, or an old lock without one: the holder may well be it.
    for (const content of [`${other.pid} 0123456789ab ${start} ${hostname()}\n`, `${other.pid} 0123456789ab\n`]) {
      writeFileSync(lock, content);
      await expect(store.open(ID)).rejects.toThrow(`session ${ID} is open in process ${other.pid} — close it there first`);
    }
  });

  it("another host's lock holds until it has not been refreshed for the timeout; a held lock is refreshed", async () => {
    const data = dataDir();
    const lock = join(data, 'sessions', `${ID}.lock`);
    const store = new LowdbStore(data);
    writeFileSync(lock, `4242 0123456789ab 777 build-box-7\n`);
    await expect(store.open(ID)).rejects.toThrow(
      `session ${ID} is open in process 4242 on host build-box-7 — close it there first (its lock is taken over once it has not been refreshed for 300 s; TROUPE_LOCK_STALE_SECONDS)`,
    );
    expect((await store.list())[0]).toMatchObject({ lockedBy: 4242 });
    const old = new Date(Date.now() - 301_000);
    utimesSync(lock, old, old);
    const { handle } = await store.open(ID);
    utimesSync(lock, old, old);
    refreshLock(lock);
    expect(Date.now() - statSync(lock).mtimeMs).toBeLessThan(60_000);
    await handle.close();
  });

  it('a lock path that is a directory is one clear line, exit 1, and is left alone', async () => {
    const data = dataDir();
    mkdirSync(join(data, 'sessions', `${ID}.lock`));
    await expect(new LowdbStore(data).open(ID)).rejects.toBeInstanceOf(LockPathError);
    const cli = spawnSync(process.execPath, [CLI, 'resume', ID, '--demo'], { env: { ...process.env, TROUPE_DATA_DIR: data }, encoding: 'utf8' });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toBe(`troupe: ${join(data, 'sessions', `${ID}.lock`)} is a directory, not a lock file — remove it (rmdir) if no troupe has the session open\n`);
    expect(statSync(join(data, 'sessions', `${ID}.lock`)).isDirectory()).toBe(true);
  });

  it('the in-memory store refuses a second open too', async () => {
    const store = new MemoryStore();
    const fixture = join(REPO_ROOT, 'tests', 'fixtures', 'sessions', `v${SESSION_SCHEMA_VERSION}`);
    store.docs.set(ID, readFileSync(`${fixture}.json`, 'utf8').replaceAll(`"fixture-v${SESSION_SCHEMA_VERSION}"`, JSON.stringify(ID)));
    store.journals.set(ID, readFileSync(`${fixture}.jsonl`, 'utf8').trim().split('\n'));
    const { handle } = await store.open(ID);
    await expect(store.open(ID)).rejects.toBeInstanceOf(SessionLockedError);
    await handle.close();
    await (await store.open(ID)).handle.close();
  });
});

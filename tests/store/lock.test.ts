import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionLockedError } from '../../src/store/lock.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { MemoryStore } from '../../src/store/memory-store.js';
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
    expect(readFileSync(join(data, 'sessions', `${ID}.lock`), 'utf8').trim().split(' ')[0]).toBe(String(process.pid));
    await handle.close();
    expect(existsSync(join(data, 'sessions', `${ID}.lock`))).toBe(false);
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

  it('the in-memory store refuses a second open too', async () => {
    const store = new MemoryStore();
    store.docs.set(ID, readFileSync(join(REPO_ROOT, 'tests', 'fixtures', 'sessions', 'v2.json'), 'utf8').replaceAll('"fixture-v2"', JSON.stringify(ID)));
    const { handle } = await store.open(ID);
    await expect(store.open(ID)).rejects.toBeInstanceOf(SessionLockedError);
    await handle.close();
    await (await store.open(ID)).handle.close();
  });
});

import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LOCK_WRITE_GRACE_MS } from '../../src/store/lock.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { BRIEF, ENV } from './support.js';

const CHILD = join(REPO_ROOT, 'tests', 'store', 'create-kill-child.ts');
const tempDir = tempDirPerTest('troupe-create-kill-');

/** Runs the child until it has acknowledged `created` sessions, then SIGKILLs it; resolves with the ids it acknowledged. */
function createAndKill(dataDir: string, created: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const acknowledged: string[] = [];
    let buffer = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith('created ')) acknowledged.push(line.slice('created '.length));
      if (acknowledged.length >= created) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(acknowledged) : reject(new Error(`child ended (${code}): ${stderr}`))));
  });
}

describe('sessions killed while being created, many at once (issue 23, item 2: the document created at its own name)', () => {
  it('every session acknowledged is listed and opens; a session cut off mid-create is listed whole or not at all; the ids are free again', async () => {
    for (const created of [1, 30, 60]) {
      const data = tempDir();
      const acknowledged = await createAndKill(data, created);
      const store = new LowdbStore(data);
      const entries = await store.list();
      // No session is listed as damaged (a document cut off between its create and its write is not a session).
      expect(entries.filter((e) => 'error' in e)).toEqual([]);
      const listed = new Set(entries.map((e) => e.id));
      for (const id of acknowledged) expect(listed.has(id), id).toBe(true);
      for (const id of acknowledged.slice(0, 3)) {
        const opened = await store.open(id);
        expect(opened.handle.doc).toMatchObject({ id, brief: BRIEF, checkpoint: { records: 0 } });
        await opened.handle.close();
      }
      // A kill after the creates and before the writes leaves an empty document and journal and a lock without its
      // record, held for its grace period (its writer may be between the two): not listed, and removed once it is over.
      const sessions = join(data, 'sessions');
      const unlisted = readdirSync(sessions)
        .filter((f) => f.endsWith('.json') && f !== 'index.json')
        .map((f) => f.slice(0, -'.json'.length))
        .filter((id) => !listed.has(id));
      for (const id of unlisted) {
        expect(statSync(join(sessions, `${id}.json`)).size, id).toBe(0);
        const lock = join(sessions, `${id}.lock`);
        if (existsSync(lock)) {
          const past = new Date(Date.now() - LOCK_WRITE_GRACE_MS - 1_000);
          utimesSync(lock, past, past);
        }
      }
      if (unlisted.length > 0) await store.list();
      expect(readdirSync(sessions).filter((f) => unlisted.some((id) => f.startsWith(`${id}.`)))).toEqual([]);
    }
  }, 120_000);

  it('a document left empty by a creator killed between its create and its write is not listed while its lock is held, then removed with its empty journal; the id is free again', async () => {
    const data = tempDir();
    const sessions = join(data, 'sessions');
    mkdirSync(sessions, { recursive: true });
    // What the kill leaves: the lock (of a process that is gone), the empty document and the empty journal.
    writeFileSync(join(sessions, 'cut.lock'), '999999999 000000000001 - vm\n');
    closeSync(openSync(join(sessions, 'cut.json'), 'w'));
    closeSync(openSync(join(sessions, 'cut.jsonl'), 'w'));
    const store = new LowdbStore(data);
    expect((await store.list()).map((e) => e.id)).toEqual([]);
    expect(readdirSync(sessions).filter((f) => f.startsWith('cut'))).toEqual([]);
    const session = await openSession({ team: studio(), model: new DemoModel(), store, id: 'cut', brief: BRIEF, env: ENV });
    expect((await store.list()).map((e) => e.id)).toEqual(['cut']);
    await session.stop();
  });

  it('a creator killed after its three creates and before its writes: not listed while its empty lock is in its grace period, removed after', async () => {
    const data = tempDir();
    const sessions = join(data, 'sessions');
    mkdirSync(sessions, { recursive: true });
    for (const f of ['cut.lock', 'cut.json', 'cut.jsonl']) closeSync(openSync(join(sessions, f), 'w'));
    const store = new LowdbStore(data);
    expect(await store.list()).toEqual([]);
    expect(
      readdirSync(sessions)
        .filter((f) => f.startsWith('cut'))
        .sort(),
    ).toEqual(['cut.json', 'cut.jsonl', 'cut.lock']);
    const past = new Date(Date.now() - LOCK_WRITE_GRACE_MS - 1_000);
    utimesSync(join(sessions, 'cut.lock'), past, past);
    expect(await store.list()).toEqual([]);
    expect(readdirSync(sessions).filter((f) => f.startsWith('cut'))).toEqual([]);
  });

  it('a creator that finds the lock held by a live process is refused, and leaves the document it made whole to that process (it may have opened it); a lock path that is no file leaves nothing', async () => {
    const data = tempDir();
    const sessions = join(data, 'sessions');
    mkdirSync(sessions, { recursive: true });
    // Process 1 is alive: its lock holds.
    writeFileSync(join(sessions, 'held.lock'), `1 000000000001 - ${hostname()}\n`);
    mkdirSync(join(sessions, 'odd.lock'));
    const store = new LowdbStore(data);
    const create = (id: string) => openSession({ team: studio(), model: new DemoModel(), store, id, brief: BRIEF, env: ENV });
    await expect(create('held')).rejects.toThrow('session held is open in process 1');
    expect(JSON.parse(readFileSync(join(sessions, 'held.json'), 'utf8'))).toMatchObject({ id: 'held', brief: BRIEF });
    await expect(create('odd')).rejects.toThrow('odd.lock is a directory');
    expect(
      readdirSync(sessions)
        .filter((f) => f.startsWith('odd'))
        .sort(),
    ).toEqual(['odd.lock']);
  });

  it('an empty document beside a journal that holds lines is kept and listed as damaged (it is not removed)', async () => {
    const data = tempDir();
    const sessions = join(data, 'sessions');
    mkdirSync(sessions, { recursive: true });
    closeSync(openSync(join(sessions, 'torn.json'), 'w'));
    writeFileSync(join(sessions, 'torn.jsonl'), '{"n":1}\n');
    const entries = await new LowdbStore(data).list();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id: 'torn', error: expect.stringContaining('torn.json') });
    expect(
      readdirSync(sessions)
        .filter((f) => f.startsWith('torn'))
        .sort(),
    ).toEqual(['torn.json', 'torn.jsonl']);
  });
});

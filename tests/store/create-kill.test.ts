import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { BRIEF, ENV } from './support.js';

const CHILD = join(REPO_ROOT, 'tests', 'store', 'create-kill-child.ts');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'troupe-create-kill-'));
  dirs.push(d);
  return d;
};

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
      // A document the kill left empty went with the listing (its journal and lock too): its id can be created again.
      const left = readdirSync(join(data, 'sessions')).filter((f) => f.endsWith('.json') && f !== 'index.json');
      expect(left.map((f) => f.slice(0, -'.json'.length)).every((id) => listed.has(id))).toBe(true);
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

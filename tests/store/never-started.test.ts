import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { foldStoredTail } from '../../src/session/stored-tail.js';
import { CHAIN_START } from '../../src/store/journal-chain.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { SessionDocument } from '../../src/store/session-file.js';
import type { StoredEntry } from '../../src/store/store.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';
import { uninterrupted } from './support.js';
import { storedDocumentText } from '../helpers/stored-document.js';

const CHILD = join(REPO_ROOT, 'tests', 'store', 'never-started-child.ts');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'troupe-unstarted-'));
  dirs.push(d);
  return d;
};

/** Starts the child on a session, resolves once its files are written with a function that SIGKILLs it (resolving once it is gone). */
function openInChild(dataDir: string, id: string, brief?: string): Promise<{ pid: number; kill: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, id, ...(brief ? [brief] : [])], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const gone = new Promise<void>((r) => child.on('exit', () => r()));
    let out = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('READY\n')) resolve({ pid: child.pid!, kill: () => (child.kill('SIGKILL'), gone) });
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => signal === null && reject(new Error(`child ended (${code}): ${stderr}`)));
  });
}

const row = (stdout: string, id: string) => stdout.split('\n').find((l) => l.startsWith(id.slice(0, 8)));
const listed = (entries: StoredEntry[], id: string) => entries.find((e) => e.id === id);

describe('a session killed before its first brief', () => {
  it('is listed as open while its process lives, then is not listed and its files are removed once its process is gone', async () => {
    const data = tempDir();
    const env = cleanEnv({ TROUPE_DATA_DIR: data });
    const child = await openInChild(data, 'nobrief');
    const store = new LowdbStore(data);
    // A live holder: never removed, whatever its state.
    expect(row((await runCli(['sessions'], env, '', { cwd: data })).stdout, 'nobrief')).toContain(`open (pid ${child.pid})`);
    expect(existsSync(store.pathOf('nobrief'))).toBe(true);
    await child.kill();
    // Its lock names a process that is gone: the listing removes it, with its journal, lock and own files.
    expect(existsSync(store.lockOf('nobrief'))).toBe(true);
    const out = await runCli(['sessions'], env, '', { cwd: data });
    expect(out.code).toBe(0);
    expect(row(out.stdout, 'nobrief')).toBeUndefined();
    expect(readdirSync(join(data, 'sessions')).filter((f) => f.startsWith('nobrief'))).toEqual([]);
    expect(existsSync(store.filesOf('nobrief'))).toBe(false);
    expect(Object.keys(JSON.parse(readFileSync(join(data, 'sessions', 'index.json'), 'utf8')).sessions)).not.toContain('nobrief');
  }, 60_000);

  it('whose removal was cut off after its journal went (its document left) is removed by the next listing', async () => {
    const data = tempDir();
    const child = await openInChild(data, 'halfgone');
    await child.kill();
    const store = new LowdbStore(data);
    rmSync(store.journalOf('halfgone'));
    expect(listed(await store.list(), 'halfgone')).toBeUndefined();
    expect(readdirSync(join(data, 'sessions')).filter((f) => f.startsWith('halfgone'))).toEqual([]);
  }, 60_000);

  it('with its brief stored is kept: resume starts on it', async () => {
    const data = tempDir();
    const child = await openInChild(data, 'withbrief', 'A lighthouse keeper game');
    await child.kill();
    const entry = listed(await new LowdbStore(data).list(), 'withbrief');
    expect(entry && 'listing' in entry ? { status: entry.listing.status, brief: entry.listing.brief } : entry).toEqual({ status: 'idle', brief: 'A lighthouse keeper game' });
    expect(row((await runCli(['sessions'], cleanEnv({ TROUPE_DATA_DIR: data }), '', { cwd: data })).stdout, 'withbrief')).toContain('not started');
  }, 60_000);

  it('whose checkpoint says never started but whose journal holds its start is kept (folded or not)', async () => {
    const data = tempDir();
    const store = new LowdbStore(data);
    await uninterrupted(store, 'started');
    // As if killed right after its first step, before any checkpoint but the one made at its creation.
    const doc = JSON.parse(storedDocumentText(store.pathOf('started'))) as SessionDocument;
    writeFileSync(store.pathOf('started'), JSON.stringify({ ...doc, brief: '', checkpoint: { ...doc.checkpoint, records: 0, hash: CHAIN_START, snapshot: doc.base, usage: null } }));
    expect(doc.base).toMatchObject({ status: 'idle', brief: '' });
    // Without a fold its listing is the checkpoint's (never started), yet the journal's inputs keep it.
    const plain = listed(await store.list(), 'started');
    expect(plain && 'listing' in plain && plain.listing.status).toBe('idle');
    expect(existsSync(store.journalOf('started'))).toBe(true);
    const folded = listed(await new LowdbStore(data, { foldTail: async (d, t) => foldStoredTail(d, t) }).list(), 'started');
    expect(folded && 'listing' in folded && folded.listing.status).toBe('awaiting_user');
  });
});

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveSessionId } from '../../src/cli/session-lookup.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';

const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'sessions');
const DOC = JSON.parse(readFileSync(join(FIXTURES, 'v2.json'), 'utf8'));
const JOURNAL = readFileSync(join(FIXTURES, 'v2.jsonl'), 'utf8');

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** Stores the v2 fixture (waiting for the user) as `id`, last updated on `day` of March, with an edit. */
function put(dir: string, id: string, day: number, edit: (doc: any) => void = () => {}): void {
  const doc = structuredClone(DOC);
  doc.id = id;
  doc.team.dir = REPO_ROOT;
  doc.updatedAt = `2026-03-${String(day).padStart(2, '0')}T00:00:00.000Z`;
  edit(doc);
  writeFileSync(join(dir, 'sessions', `${id}.json`), JSON.stringify(doc));
  writeFileSync(join(dir, 'sessions', `${id}.jsonl`), JOURNAL.replaceAll('"fixture-v2"', JSON.stringify(id)));
}

const ended = (doc: any) => Object.assign(doc.checkpoint.snapshot, { status: 'ended', endReason: 'user quit' });
const neverStarted = (doc: any) => {
  doc.brief = '';
  Object.assign(doc.checkpoint.snapshot, { status: 'idle', brief: '', turn: 0, active: null, awaiting: null });
};

/** A data dir whose newer sessions are ended, never started, and open elsewhere; the oldest one can go on. */
async function mixed(): Promise<{ dir: string; store: LowdbStore }> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-resume-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'sessions'));
  put(dir, 'good', 1);
  put(dir, 'open-elsewhere', 2);
  put(dir, 'not-started', 3, neverStarted);
  put(dir, 'finished', 4, ended);
  const store = new LowdbStore(dir);
  await store.open('open-elsewhere');
  return { dir, store };
}

describe('which session troupe resume takes when no id is given', () => {
  it('the most recently updated one that is not ended, has a brief and is not open elsewhere', async () => {
    const { store } = await mixed();
    expect(await resolveSessionId(store, undefined)).toBe('good');
    // show and export still take the newest, whatever its state.
    expect(await resolveSessionId(store, undefined, { pick: 'newest' })).toBe('finished');
  });

  it('an explicit id still opens exactly that session', async () => {
    const { store } = await mixed();
    expect(await resolveSessionId(store, 'finished')).toBe('finished');
    expect(await resolveSessionId(store, 'not-st')).toBe('not-started');
  });

  it('headless resume continues the resumable session, not the newest', async () => {
    const { dir } = await mixed();
    const out = await runCli(['resume'], cleanEnv({ TROUPE_DATA_DIR: dir }));
    expect(out.code).toBe(0);
    expect(out.stdout.split('\n')[0]).toMatch(/^troupe · resuming session good /);
  });

  it('when none can be resumed: one line saying why and how to pick one', async () => {
    const { dir, store } = await mixed();
    rmSync(join(dir, 'sessions', 'good.json'));
    // The session that never started (no brief, no lock) is removed by the listing, not counted (tests/store/never-started.test.ts).
    await expect(resolveSessionId(store, undefined)).rejects.toThrow(
      'no session can be resumed (1 ended, 1 open in another process) — list them with troupe sessions, then pick one with troupe resume <id>, or start one with troupe run "<brief>"',
    );
    expect(existsSync(join(dir, 'sessions', 'not-started.json'))).toBe(false);
    await expect(resolveSessionId(new MemoryStore(), undefined)).rejects.toThrow(/^no stored sessions yet/);
    // Before npm link the hints name the command the user started troupe with.
    await expect(resolveSessionId(new MemoryStore(), undefined, { pick: 'resumable', troupe: 'npm start --' })).rejects.toThrow('no stored sessions yet — start one with npm start -- run "<brief>"');
  });
});

describe('troupe resume without an id, beside a session planted in the data dir (round 12 probe)', () => {
  // The cause was: the default pick was the newest by the document's own updatedAt, so a document planted with a
  // date to come (a cloned repository's .troupe/) was resumed instead of the user's. Sessions this user's troupe
  // sealed come first; when only others can go on, the pick is said on stderr in one line.
  async function twoSessions(): Promise<{ dir: string; mine: Record<string, string>; own: string; planted: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-resume-planted-'));
    dirs.push(dir);
    const mine = cleanEnv({ TROUPE_DATA_DIR: dir, XDG_CONFIG_HOME: join(dir, 'my-config') }) as Record<string, string>;
    const elsewhere = cleanEnv({ TROUPE_DATA_DIR: dir, XDG_CONFIG_HOME: join(dir, 'their-config') });
    const ids = async (env: NodeJS.ProcessEnv) => {
      const run = await runCli(['run', 'a lighthouse keeper game', '--demo', '--json'], env);
      expect(run.code, run.stderr).toBe(0);
      return String(JSON.parse(run.stdout.split('\n')[0]!).session_id);
    };
    const own = await ids(mine);
    const planted = await ids(elsewhere);
    // Hostile input: the planted document says it was updated in 2099.
    const file = join(dir, 'sessions', `${planted}.json`);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"updatedAt":"[^"]*"/, '"updatedAt":"2099-01-01T00:00:00.000Z"'));
    return { dir, mine, own, planted };
  }

  it('resumes the session this user started, not the planted one dated later', async () => {
    const { mine, own } = await twoSessions();
    const out = await runCli(['resume'], mine);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout.split('\n')[0]).toMatch(new RegExp(`^troupe · resuming session ${own} `));
    expect(out.stderr).toBe('');
  });

  it('when only sessions started elsewhere can go on, takes the newest and says so in one line', async () => {
    const { dir, mine, own, planted } = await twoSessions();
    rmSync(join(dir, 'sessions', `${own}.json`));
    const out = await runCli(['resume'], mine);
    expect(out.stdout.split('\n')[0]).toMatch(new RegExp(`^troupe · resuming session ${planted} `));
    expect(out.stderr.split('\n')[0]).toBe(
      `resuming ${planted}, the newest session that can go on: none can that your troupe started (it was made elsewhere, before sessions were sealed, or edited) — name one with troupe resume <id>`,
    );
  });
});

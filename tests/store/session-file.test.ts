import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { CURRENT_FORMAT, parseSessionFile, SessionFileError, type FileFormat } from '../../src/store/load-file.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { SessionFileSchema, SESSION_SCHEMA_VERSION } from '../../src/store/session-file.js';
import { openStoredSession } from '../../src/store/stored-session.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'sessions');
let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A data dir holding one fixture as session `id`. */
function dataDirWith(fixture: string, id: string, edit?: (doc: any) => unknown): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-store-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'sessions'));
  const path = join(dir, 'sessions', `${id}.json`);
  if (edit) writeFileSync(path, JSON.stringify(edit(JSON.parse(readFileSync(join(FIXTURES, fixture), 'utf8')))));
  else copyFileSync(join(FIXTURES, fixture), path);
  return { dir, path };
}

describe('session file versions', () => {
  it('keeps a fixture for every released schema version, and each one loads', () => {
    for (let v = 1; v <= SESSION_SCHEMA_VERSION; v++) {
      const path = join(FIXTURES, `v${v}.json`);
      const { file, storedVersion } = parseSessionFile(readFileSync(path, 'utf8'), path);
      expect(storedVersion).toBe(v);
      expect(file.schema).toBe(SESSION_SCHEMA_VERSION);
      expect(file.snapshot.transcript.length).toBeGreaterThan(5);
    }
  });

  it('opens the v1 fixture (made by a real run) into a runner that continues it', async () => {
    const { dir } = dataDirWith('v1.json', 'fixture-v1');
    const stored = await openStoredSession({ store: new LowdbStore(dir), id: 'fixture-v1', model: new DemoModel(), openTeam: () => studio() });
    expect(stored.runner.session.status).toBe('awaiting_user');
    expect(stored.runner.session.history).toEqual(['creative_partner', 'game_designer', 'lead_engineer', 'ceo', 'cmo']);
    stored.runner.dispatch({ type: 'user_approve' });
    await stored.close();
    const after = await new LowdbStore(dir).read('fixture-v1');
    expect(after.snapshot.status).toBe('ended');
    expect(after.snapshot.endReason).toMatch(/approved by the user/);
  });

  it('refuses a newer schema version with one line and leaves the file byte-for-byte untouched', async () => {
    const { dir, path } = dataDirWith('v1.json', 'newer', (doc) => ({ ...doc, schema: SESSION_SCHEMA_VERSION + 1 }));
    const before = readFileSync(path);
    const store = new LowdbStore(dir);
    await expect(store.open('newer')).rejects.toThrow(new RegExp(`newer\\.json: schema version ${SESSION_SCHEMA_VERSION + 1} is newer than this troupe supports`));
    await expect(store.open('newer')).rejects.toBeInstanceOf(SessionFileError);
    expect(readFileSync(path).equals(before)).toBe(true);
    // The refused open did not leave its lock behind.
    expect(existsSync(join(dir, 'sessions', 'newer.lock'))).toBe(false);
  });

  it('refuses corrupt files (bad JSON, truncated, wrong field) naming the file and field, and never writes them', async () => {
    const { dir, path } = dataDirWith('v1.json', 'bad');
    const store = new LowdbStore(dir);
    const full = readFileSync(path, 'utf8');
    const cases: [string, RegExp][] = [
      [full.slice(0, full.length / 2), /bad\.json: not valid JSON .* corrupt/],
      ['[]', /not a troupe session file/],
      ['{"id":"x"}', /schema: missing/],
      [JSON.stringify({ ...JSON.parse(full), snapshot: { ...JSON.parse(full).snapshot, history: 'oops' } }), /bad\.json: snapshot\.history: .*corrupt/],
    ];
    for (const [text, message] of cases) {
      writeFileSync(path, text);
      await expect(store.open('bad')).rejects.toThrow(message);
      await expect(store.read('bad')).rejects.toThrow(message);
      expect(readFileSync(path, 'utf8')).toBe(text);
      expect((await store.list())[0], text.slice(0, 40)).toMatchObject({ id: 'bad', error: expect.stringMatching(message) });
    }
  });

  it('a damaged memory section is refused with one line naming the session file and the fix', async () => {
    const { dir, path } = dataDirWith('v1.json', 'fixture-v1', (doc) => ({ ...doc, memory: { version: 1, raw: 'oops' } }));
    const open = () => openStoredSession({ store: new LowdbStore(dir), id: 'fixture-v1', model: new DemoModel(), openTeam: () => studio() });
    await expect(open()).rejects.toBeInstanceOf(SessionFileError);
    await expect(open()).rejects.toThrow(new RegExp(`^${path.replace(/[.\\/]/g, '\\$&')}: memory\\.\\w+: .* remove the "memory" section to start memory afresh$`));
    // The refused open released its lock.
    expect(existsSync(join(dir, 'sessions', 'fixture-v1.lock'))).toBe(false);
  });

  it('migrates an older version on load and keeps the original file as a backup', async () => {
    // A future v2 that adds a required field: the current format plays "v1", the migration fills it.
    const v2: FileFormat = {
      version: SESSION_SCHEMA_VERSION + 1,
      schema: SessionFileSchema.extend({ schema: z.literal(SESSION_SCHEMA_VERSION + 1), labels: z.array(z.string()) }),
      migrations: { ...CURRENT_FORMAT.migrations, [SESSION_SCHEMA_VERSION]: (raw) => ({ ...raw, labels: ['migrated'] }) },
    };
    const { dir, path } = dataDirWith('v1.json', 'fixture-v1');
    const original = readFileSync(path, 'utf8');
    const store = new LowdbStore(dir, { format: v2 });
    const handle = await store.open('fixture-v1');
    expect(handle.data.schema).toBe(SESSION_SCHEMA_VERSION + 1);
    expect((handle.data as unknown as { labels: string[] }).labels).toEqual(['migrated']);
    expect(handle.data.snapshot.transcript.length).toBeGreaterThan(5);
    expect(readFileSync(`${path}.v${SESSION_SCHEMA_VERSION}.bak`, 'utf8')).toBe(original);
    await handle.write();
    await handle.close();
    expect(JSON.parse(readFileSync(path, 'utf8')).schema).toBe(SESSION_SCHEMA_VERSION + 1);
    // A version with no migration path is refused.
    const gap: FileFormat = { ...v2, migrations: {} };
    writeFileSync(path, original);
    await expect(new LowdbStore(dir, { format: gap }).open('fixture-v1')).rejects.toThrow(/no migration from schema version 1 to 2/);
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionFileError } from '../../src/store/load-file.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';

const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures');
let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A data dir whose session `fixture-v<version>` is that version's fixture document with a hostile journal from tests/fixtures/corrupt/. */
function dataDirWith(journal: string, version = 3): { dir: string; id: string; doc: string; jsonl: string } {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-chain-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'sessions'));
  const id = `fixture-v${version}`;
  const doc = join(dir, 'sessions', `${id}.json`);
  const jsonl = join(dir, 'sessions', `${id}.jsonl`);
  copyFileSync(join(FIXTURES, 'sessions', `v${version}.json`), doc);
  copyFileSync(join(FIXTURES, 'corrupt', journal), jsonl);
  return { dir, id, doc, jsonl };
}

/** Every file of the data dir's sessions with its bytes: what a refusal must leave as it was. */
function filesOf(dir: string): Record<string, string> {
  const sessions = join(dir, 'sessions');
  return Object.fromEntries(readdirSync(sessions).map((f) => [f, readFileSync(join(sessions, f)).toString('base64')]));
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const UNDER = (doc: string) => `the journal is damaged; restore it from a backup \\(the checkpoint in ${esc(doc)} covers lines 1–36\\); it was left as it is`;

/** Each hostile journal with the one line it is refused with (the journal's path and the document's are filled in). */
const CASES: { journal: string; version?: number; message: (jsonl: string, doc: string) => string }[] = [
  { journal: 'journal-duplicated-line.jsonl', message: (j, d) => `${esc(j)}: line 13 repeats line 12 \\(a duplicated record\\) — ${UNDER(d)}` },
  { journal: 'journal-missing-line.jsonl', message: (j, d) => `${esc(j)}: line 20 holds record 21 where record 20 belongs — a record is missing or out of order — ${UNDER(d)}` },
  { journal: 'journal-reordered-pair.jsonl', message: (j, d) => `${esc(j)}: line 7 holds record 8 where record 7 belongs — a record is missing or out of order — ${UNDER(d)}` },
  { journal: 'journal-altered-input-type.jsonl', message: (j, d) => `${esc(j)}: line 13 was changed after it was written \\(its bytes do not match its hash\\) — ${UNDER(d)}` },
  { journal: 'journal-altered-event-byte.jsonl', message: (j, d) => `${esc(j)}: line 10 was changed after it was written \\(its bytes do not match its hash\\) — ${UNDER(d)}` },
  {
    journal: 'journal-cut-below-checkpoint.jsonl',
    message: (j, d) =>
      `${esc(j)}: ends at line 13, but the checkpoint in ${esc(d)} covers 36 lines — lines 14–36 are missing \\(the journal was cut or replaced\\); restore it from a backup; it was left as it is`,
  },
  {
    journal: 'journal-resealed-rewrite.jsonl',
    message: (j, d) =>
      `${esc(j)}: line 36 is not the line the checkpoint in ${esc(d)} ends at \\(hash [0-9a-f]{16}, recorded [0-9a-f]{16}\\) — the journal was rewritten under its checkpoint; restore it from a backup; it was left as it is`,
  },
  { journal: 'v2-journal-duplicated-line.jsonl', version: 2, message: (j, d) => `${esc(j)}: line 13 repeats line 12 \\(a duplicated record\\) — ${UNDER(d)}` },
  {
    journal: 'v2-journal-cut-below-checkpoint.jsonl',
    version: 2,
    message: (j, d) =>
      `${esc(j)}: ends at line 13, but the checkpoint in ${esc(d)} covers 36 lines — lines 14–36 are missing \\(the journal was cut or replaced\\); restore it from a backup; it was left as it is`,
  },
];

describe('journal integrity: a damaged journal that is still valid JSON is refused with one line, and left as it is', () => {
  it.each(CASES)('$journal: the store refuses to open or read it', async ({ journal, version, message }) => {
    const { dir, id, doc, jsonl } = dataDirWith(journal, version);
    const before = filesOf(dir);
    const expected = new RegExp(`^${message(jsonl, doc)}$`);
    const store = new LowdbStore(dir);
    await expect(store.open(id)).rejects.toBeInstanceOf(SessionFileError);
    await expect(store.open(id)).rejects.toThrow(expected);
    await expect(store.read(id)).rejects.toThrow(expected);
    // Nothing written, no backup made, no lock or temp file left behind.
    expect(filesOf(dir)).toEqual(before);
  });

  it.each(CASES)('$journal: troupe resume and troupe show exit 1 with that line, and the files are untouched', async ({ journal, version, message }) => {
    const { dir, id, doc, jsonl } = dataDirWith(journal, version);
    const before = filesOf(dir);
    for (const args of [
      ['resume', id, '--demo'],
      ['show', id],
    ]) {
      const out = await runCli(args, cleanEnv({ TROUPE_DATA_DIR: dir }));
      expect(out.code, `${args[0]}: ${out.stderr}`).toBe(1);
      expect(out.stderr, args[0]).toMatch(new RegExp(`^troupe: ${message(jsonl, doc)}\\n$`));
      expect(out.stdout, args[0]).toBe('');
      expect(filesOf(dir), args[0]).toEqual(before);
    }
  });

  it('the in-memory store refuses the same journals with the same words', async () => {
    for (const { journal, version = 3, message } of CASES) {
      const store = new MemoryStore();
      const id = `fixture-v${version}`;
      store.docs.set(id, readFileSync(join(FIXTURES, 'sessions', `v${version}.json`), 'utf8'));
      store.journals.set(
        id,
        readFileSync(join(FIXTURES, 'corrupt', journal), 'utf8')
          .trimEnd()
          .split('\n'),
      );
      const expected = new RegExp(`^${message(`memory:${id}.jsonl`, `memory:${id}`)}$`);
      await expect(store.open(id), journal).rejects.toThrow(expected);
      await expect(store.read(id), journal).rejects.toThrow(expected);
    }
  });

  it('damage past the checkpoint names the cut that keeps what the checkpoint covers, and that cut opens', async () => {
    const { dir, id, jsonl } = dataDirWith('journal-duplicated-last-line.jsonl');
    const intact = statSync(join(FIXTURES, 'sessions', 'v3.jsonl')).size;
    const store = new LowdbStore(dir);
    await expect(store.open(id)).rejects.toThrow(
      new RegExp(
        `^${esc(jsonl)}: line 37 repeats line 36 \\(a duplicated record\\) — the journal is damaged; to go on without line 37 and the lines after it, cut the journal there \\(truncate -s ${intact} ${esc(jsonl)}\\); it was left as it is$`,
      ),
    );
    truncateSync(jsonl, intact);
    const opened = await store.open(id);
    expect(opened.tail).toEqual([]);
    await opened.handle.close();
  });

  it('the fixtures differ from the intact journal only as their names say', () => {
    const intact = readFileSync(join(FIXTURES, 'sessions', 'v3.jsonl'), 'utf8')
      .trimEnd()
      .split('\n');
    const lines = (name: string) =>
      readFileSync(join(FIXTURES, 'corrupt', name), 'utf8')
        .trimEnd()
        .split('\n');
    expect(lines('journal-duplicated-line.jsonl')).toEqual([...intact.slice(0, 12), intact[11], ...intact.slice(12)]);
    expect(lines('journal-missing-line.jsonl')).toEqual([...intact.slice(0, 19), ...intact.slice(20)]);
    expect(lines('journal-cut-below-checkpoint.jsonl')).toEqual(intact.slice(0, 13));
    const changed = (name: string) => lines(name).flatMap((l, i) => (l === intact[i] ? [] : [i + 1]));
    expect(changed('journal-altered-input-type.jsonl')).toEqual([13]);
    expect(changed('journal-altered-event-byte.jsonl')).toEqual([10]);
    expect(changed('journal-reordered-pair.jsonl')).toEqual([7, 8]);
    // Valid JSON on every line: only the chain tells.
    for (const name of ['journal-altered-input-type.jsonl', 'journal-altered-event-byte.jsonl', 'journal-resealed-rewrite.jsonl'])
      for (const l of lines(name)) expect(() => JSON.parse(l)).not.toThrow();
  });
});

import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, runCliChild } from '../helpers/cli.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { dataDirWith, SESSION_FIXTURES } from './support.js';

// Probe of the readers and writers of a stored session's files. The data dir defaults to `.troupe/` in the
// working directory, so a cloned repository can ship one: links (git keeps them) to files of the user's, and
// hand-made documents. Reading or resuming a session must not write outside the data dir, nor hang, nor crash.
// Each test below was a hole found by this probe (round 10), fixed in the store; its comment names the cause it had.

const temp = tempDirPerTest('troupe-hostile-data-');

describe('files linked out of the data dir are not written through', () => {
  // The cause was: DocumentFile.write (src/store/document-file.ts) writes its temporary file `.index.json.tmp` with
  // writeFileSync, which follows a link at that name (then renames the link over index.json).
  it('`troupe sessions` (a read-only command) does not write the listing cache through a link planted at its temporary name', async () => {
    const { dir, sessions, victim } = dataDirWith(temp(), 5);
    symlinkSync(victim, join(sessions, '.index.json.tmp'));
    const out = await runCli(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dir }));
    expect(out.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('the user own file, no newline');
    expect(lstatSync(join(sessions, 'index.json')).isSymbolicLink()).toBe(false);
  });

  // The cause was: LowdbStore.open's JournalWriter (src/store/journal-file.ts) opens `<id>.jsonl` with 'a+', following a
  // link, and cuts what it takes for a torn last line (a file without a newline: all of it) before appending.
  it('`troupe resume` of a session whose journal is a link out neither cuts nor appends to the linked file', async () => {
    const { dir, sessions, victim } = dataDirWith(temp(), 5);
    // A hand-made document whose checkpoint covers no journal line (the fixture's, moved back to its start).
    const doc = JSON.parse(readFileSync(join(SESSION_FIXTURES, 'v5.json'), 'utf8'));
    doc.id = 'linked';
    doc.base.id = 'linked';
    doc.checkpoint = { ...doc.checkpoint, records: 0, lastSeq: 0, snapshot: { ...doc.base }, hash: '0'.repeat(16) };
    writeFileSync(join(sessions, 'linked.json'), JSON.stringify(doc));
    symlinkSync(victim, join(sessions, 'linked.jsonl'));
    await runCli(['resume', 'linked', '--demo'], cleanEnv({ TROUPE_DATA_DIR: dir }));
    // Before: the user's file was emptied and the session's journal written into it.
    expect(readFileSync(victim, 'utf8')).toBe('the user own file, no newline');
  });

  // The cause was: LowdbStore.upgrade (src/store/lowdb-store.ts) keeps the old document with copyFileSync(path,
  // `${path}.v<N>.bak`), which writes through a link at that name.
  it('upgrading an older session file on resume does not write its backup through a link at the backup name', async () => {
    const { dir, sessions, id, victim } = dataDirWith(temp(), 4);
    symlinkSync(victim, join(sessions, `${id}.json.v4.bak`));
    await runCli(['resume', id, '--demo'], cleanEnv({ TROUPE_DATA_DIR: dir }));
    expect(readFileSync(victim, 'utf8')).toBe('the user own file, no newline');
  });
});

describe('a damaged or hostile listing cache is rebuilt, not trusted', () => {
  // The cause was: LowdbStore.readIndex (src/store/lowdb-store.ts) checks the cache's version and that `sessions` is an
  // object, not its entries: an entry whose mtime and journal size match is shown as it is, so a cost that is not
  // a number reaches formatSessionTable's toFixed ("troupe: internal error: l.cost.toFixed is not a function",
  // exit 70; a turns object: "Cannot convert object to primitive value"), where a damaged cache should be remade.
  it('an index.json entry with fields of the wrong type (matching mtime and size) does not crash `troupe sessions`', async () => {
    const { dir, sessions, id } = dataDirWith(temp(), 5);
    const env = cleanEnv({ TROUPE_DATA_DIR: dir });
    expect((await runCli(['sessions'], env)).code).toBe(0);
    const indexPath = join(sessions, 'index.json');
    const index = JSON.parse(readFileSync(indexPath, 'utf8'));
    index.sessions[id].listing.cost = 'x';
    index.sessions[id].listing.turns = { toString: 1 };
    writeFileSync(indexPath, JSON.stringify(index));
    const out = await runCli(['sessions'], env);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('fixture-');
  });

  it('(checked, holds) escape sequences in a cached listing reach the terminal as visible text only', async () => {
    const { dir, sessions, id } = dataDirWith(temp(), 5);
    const env = cleanEnv({ TROUPE_DATA_DIR: dir });
    await runCli(['sessions'], env);
    const indexPath = join(sessions, 'index.json');
    const index = JSON.parse(readFileSync(indexPath, 'utf8'));
    const listing = index.sessions[id].listing;
    listing.state = '\x1b]52;c;ZWNobyBoaQ==\x07S\x1b[2J';
    listing.brief = 'b\x9b31m\u202eevil';
    listing.id = `${id}\x1b]0;title\x07`;
    listing.createdAt = '\x1b[8m2026-01-01T00:00';
    writeFileSync(indexPath, JSON.stringify(index));
    const out = await runCli(['sessions'], env);
    expect(out.code).toBe(0);
    for (const control of ['\x1b', '\x9b', '\u202e']) expect(out.stdout).not.toContain(control);
  });
});

describe('a session file that never ends does not hang the listing', () => {
  // The cause was: DocumentFile.read (src/store/document-file.ts) read index.json with readFileSync, following a
  // link: one to /dev/zero read 2 GiB before failing (probe10's note).
  it('`troupe sessions` with index.json linked to /dev/zero lists the sessions and replaces the link with a cache of its own', async () => {
    const { dir, sessions } = dataDirWith(temp(), 5);
    symlinkSync('/dev/zero', join(sessions, 'index.json'));
    const out = await runCli(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dir }));
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('fixture-');
    expect(lstatSync(join(sessions, 'index.json')).isFile()).toBe(true);
  });

  // The cause was: LowdbStore.load (src/store/lowdb-store.ts) checks that `<id>.json` is not a directory, then reads it
  // with readFileSync: a FIFO blocks the process for good (a link to /dev/zero reads 2 GiB before failing).
  it('`troupe sessions` with a FIFO named as a session document lists the others and ends', () => {
    const { dir, sessions } = dataDirWith(temp(), 5);
    expect(spawnSync('mkfifo', [join(sessions, 'stuck.json')]).status).toBe(0);
    const child = runCliChild(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dir }), { cwd: dir });
    expect(child.signal).toBeNull();
    expect(child.stdout).toContain('fixture-');
    expect(existsSync(join(sessions, 'stuck.json'))).toBe(true);
  });
});

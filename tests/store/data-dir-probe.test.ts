import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_STORE_FILE_BYTES, readOwnFile } from '../../src/store/document-file.js';
import { LockPathError, readLock } from '../../src/store/lock.js';
import { cleanEnv, runCli, runCliChild } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { copyFixtureSession, dataDirWith } from './support.js';

// Probe (round 11) of the store's files that openOwnFile (src/store/own-file.ts) does not open: the data dir defaults
// to `.troupe/` in the working directory, so a cloned repository (links, which git keeps) or a shared archive (FIFOs)
// can bring any of them. `troupe sessions` and `troupe serve`'s listing read every session's lock and journal tail.

const temp = tempDirPerTest('troupe-data-dir-probe-');

describe('a session lock that is not a lock file', () => {
  // The cause was: readLock (src/store/lock.ts) read `<id>.lock` with readFileSync, following links and blocking on a
  // FIFO: lockHolder is asked for every session a listing shows, so `troupe sessions` (and troupe serve's
  // GET /v1/sessions, on its event loop) never ended.
  it('`troupe sessions` with a FIFO as a session lock lists the sessions and ends, the lock named', { timeout: 30_000 }, () => {
    const { dir, sessions } = dataDirWith(temp(), 6);
    copyFixtureSession(sessions, 5);
    expect(spawnSync('mkfifo', [join(sessions, 'fixture-v6.lock')]).status).toBe(0);
    const child = runCliChild(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dir }), { cwd: dir });
    expect(child.signal).toBeNull();
    expect(child.stdout).toContain('A lighthouse keeper game');
    expect(child.stdout).toContain('fixture-v6.lock is not a regular file, not a lock file');
  });

  // The same readFileSync: a lock linked to /dev/zero had `troupe sessions` at 3.7 GB resident and still reading after 15 s.
  it('`troupe sessions` with a session lock linked to /dev/zero does not read it', { timeout: 30_000 }, () => {
    const { dir, sessions } = dataDirWith(temp(), 6);
    symlinkSync('/dev/zero', join(sessions, 'fixture-v6.lock'));
    const child = runCliChild(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dir }), { cwd: dir });
    expect(child.signal).toBeNull();
    expect(child.stdout).toContain('fixture-v6.lock is a link, not a lock file');
    expect(() => readLock(join(sessions, 'fixture-v6.lock'))).toThrow(LockPathError);
  });

  // A dangling link at the lock's name made every open fail as "being opened by another process — try again in a few
  // seconds", which no wait fixes.
  it('`troupe resume` of a session whose lock is a dangling link says it is a link, in one line', async () => {
    const { dir, sessions, id } = dataDirWith(temp(), 5);
    symlinkSync(join(dir, 'nowhere'), join(sessions, `${id}.lock`));
    const out = await runCli(['resume', id, '--demo'], cleanEnv({ TROUPE_DATA_DIR: dir }), '', { cwd: dir });
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(`troupe: ${join(sessions, `${id}.lock`)} is a link, not a lock file — remove it if no troupe has the session open\n`);
  });
});

describe('a journal that is not a journal file, read for a listing', () => {
  // The cause was: journalTailAfter (src/store/journal-tail.ts) opened `<id>.jsonl` with openSync(path, 'r'), not
  // openOwnFile: no O_NOFOLLOW, no O_NONBLOCK, no regular-file check. A FIFO there blocked `troupe sessions` for good
  // (and troupe serve's whole process: the listing runs on its event loop); a link was read wherever it led.
  it('`troupe sessions` with a FIFO as a sealed session journal lists the sessions and ends', { timeout: 30_000 }, () => {
    const { dir, sessions, id } = dataDirWith(temp(), 6);
    copyFixtureSession(sessions, 5);
    rmSync(join(sessions, `${id}.jsonl`));
    expect(spawnSync('mkfifo', [join(sessions, `${id}.jsonl`)]).status).toBe(0);
    const child = runCliChild(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dir }), { cwd: dir });
    expect(child.signal).toBeNull();
    expect(child.stdout).toContain('A lighthouse keeper game');
  });
});

describe('a session folder reached through a link', () => {
  // The cause was: LowdbStore.removeFiles (src/store/lowdb-store.ts) removed `<data dir>/runs/<id>` recursively for a
  // session that never started, which every listing does; `runs` was not checked to be troupe's own folder, so a
  // link there (git keeps relative links: `.troupe/runs -> ../..`) had `troupe sessions`, a read-only command, remove
  // the user's folder named like a forged unstarted session (tests/fixtures/hostile/unstarted-thesis.json).
  it('`troupe sessions` with `runs` linked out and a forged unstarted session removes nothing through the link', async () => {
    const root = temp();
    const dir = join(root, 'repo', '.troupe');
    mkdirSync(join(dir, 'sessions'), { recursive: true });
    const projects = join(root, 'home', 'projects');
    mkdirSync(join(projects, 'thesis'), { recursive: true });
    writeFileSync(join(projects, 'thesis', 'chapter1.txt'), 'years of work');
    symlinkSync(join('..', '..', 'home', 'projects'), join(dir, 'runs'));
    copyFileSync(join(REPO_ROOT, 'tests', 'fixtures', 'hostile', 'unstarted-thesis.json'), join(dir, 'sessions', 'thesis.json'));
    writeFileSync(join(dir, 'sessions', 'thesis.jsonl'), '');
    const out = await runCli(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dir }), '', { cwd: join(root, 'repo') });
    expect(out.code).toBe(0);
    expect(readFileSync(join(projects, 'thesis', 'chapter1.txt'), 'utf8')).toBe('years of work');
    // Kept and listed (looked at again next time), not removed.
    expect(out.stdout).toContain('thesis');
  });

  it('(checked, holds) a forged unstarted session whose own folder `runs/<id>` is a link has the link removed, not what it leads to', async () => {
    const root = temp();
    const dir = join(root, '.troupe');
    mkdirSync(join(dir, 'sessions'), { recursive: true });
    mkdirSync(join(dir, 'runs'));
    const victim = join(root, 'thesis');
    mkdirSync(victim);
    writeFileSync(join(victim, 'chapter1.txt'), 'years of work');
    symlinkSync(victim, join(dir, 'runs', 'thesis'));
    copyFileSync(join(REPO_ROOT, 'tests', 'fixtures', 'hostile', 'unstarted-thesis.json'), join(dir, 'sessions', 'thesis.json'));
    writeFileSync(join(dir, 'sessions', 'thesis.jsonl'), '');
    expect((await runCli(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dir }), '', { cwd: root })).code).toBe(0);
    expect(readFileSync(join(victim, 'chapter1.txt'), 'utf8')).toBe('years of work');
  });
});

describe('(checked, holds) sealing an old journal on resume', () => {
  // sealJournal (src/store/seal-journal.ts) writes `.<id>.jsonl.tmp` with writeFileSync, which follows a link; the
  // store removes that name under the session's lock first (lowdb-store.ts), so a planted link is not written through.
  it('a link planted at the sealing temp name of a version-2 journal leaves the linked file as it was', async () => {
    const { dir, sessions, id, victim } = dataDirWith(temp(), 2);
    symlinkSync(victim, join(sessions, `.${id}.jsonl.tmp`));
    const out = await runCli(['resume', id, '--demo'], cleanEnv({ TROUPE_DATA_DIR: dir }), '', { cwd: dir });
    expect(out.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('the user own file, no newline');
  });
});

describe('a session document larger than any troupe writes', () => {
  // The cause was: readOwnFile (src/store/document-file.ts) read a document whole whatever its size: a sparse 1.9 GB
  // session file (probe11's note) had `troupe sessions` at 2 GB resident for 8 s before its parse failed.
  it('`troupe sessions` lists the other sessions and names the file in one line, without reading it', { timeout: 30_000 }, () => {
    const { dir, sessions } = dataDirWith(temp(), 6);
    copyFixtureSession(sessions, 5);
    const huge = join(sessions, 'fixture-v6.json');
    truncateSync(huge, MAX_STORE_FILE_BYTES + 1);
    expect(() => readOwnFile(huge, 'a session file')).toThrow(`${huge} is ${MAX_STORE_FILE_BYTES + 1} bytes, more than troupe writes in a session file — move it out of the way`);
    const child = runCliChild(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dir }), { cwd: dir });
    expect(child.signal).toBeNull();
    expect(child.stdout).toContain('A lighthouse keeper game');
    expect(child.stdout + child.stderr).toContain('more than troupe writes in a session file');
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nestingDepth } from '../../src/store/nesting.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';

const ID = 'fixture-v2';
const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures');
let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A data dir whose session `fixture-v2` is the given document (a fixture file, or a directory) and the v2 journal (or a directory). */
function dataDirWith(doc: string | 'directory', journal: 'file' | 'directory' = 'file'): string {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-corrupt-'));
  dirs.push(dir);
  const sessions = join(dir, 'sessions');
  mkdirSync(sessions);
  if (doc === 'directory') mkdirSync(join(sessions, `${ID}.json`));
  else copyFileSync(join(FIXTURES, doc), join(sessions, `${ID}.json`));
  if (journal === 'directory') mkdirSync(join(sessions, `${ID}.jsonl`));
  else copyFileSync(join(FIXTURES, 'sessions', 'v2.jsonl'), join(sessions, `${ID}.jsonl`));
  return dir;
}

/** Every file under the data dir with its bytes (directories as such): what must not change. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const sessions = join(dir, 'sessions');
  for (const f of readdirSync(sessions)) {
    const path = join(sessions, f);
    out[f] = statSync(path).isDirectory() ? '<dir>' : readFileSync(path).toString('base64');
  }
  return out;
}

const COMMANDS = [
  ['show', ID],
  ['export', ID, '--format', 'json'],
  ['export', ID],
  ['resume', ID, '--demo'],
];

async function refusedEverywhere(dir: string, message: RegExp): Promise<void> {
  const before = snapshot(dir);
  for (const args of COMMANDS) {
    const out = await runCli(args, cleanEnv({ TROUPE_DATA_DIR: dir }));
    expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(1);
    expect(out.stderr, args.join(' ')).toMatch(message);
    expect(out.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    expect(out.stdout, args.join(' ')).toBe('');
    expect(snapshot(dir), args.join(' ')).toEqual(before);
  }
}

describe('corrupt session files are refused with one line, exit 1, and left as they are', () => {
  it('a document that is not valid UTF-8 (not read as U+FFFD and written back)', async () => {
    const dir = dataDirWith('corrupt/invalid-utf8.json');
    await refusedEverywhere(dir, new RegExp(`^troupe: ${join(dir, 'sessions', `${ID}.json`)}: not valid UTF-8 — the file is corrupt; it was left as it is\\n$`));
  });

  it('a document nested 100,000 levels deep (no stack overflow, nothing appended to the journal)', async () => {
    const dir = dataDirWith('corrupt/deep-nesting.json');
    await refusedEverywhere(dir, /^troupe: .*fixture-v2\.json: nests deeper than 512 levels — not a file troupe wrote; it was left as it is\n$/);
  });

  it('a document that is a directory', async () => {
    const dir = dataDirWith('directory');
    await refusedEverywhere(dir, /^troupe: .*fixture-v2\.json is a directory, not a session file — move it out of the way\n$/);
  });

  it('a journal that is a directory', async () => {
    const dir = dataDirWith('sessions/v2.json', 'directory');
    await refusedEverywhere(dir, /^troupe: .*fixture-v2\.jsonl is a directory, not a journal — move it out of the way\n$/);
  });
});

describe('nesting depth', () => {
  it('is counted without recursion and stops past the limit', () => {
    expect(nestingDepth(1)).toBe(0);
    expect(nestingDepth({ a: [1, { b: [] }] })).toBe(4);
    expect(nestingDepth(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), 512)).toBe(513);
  });
});

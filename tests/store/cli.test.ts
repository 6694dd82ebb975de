import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_START, sealLine } from '../../src/store/journal-chain.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { parseSessionFile } from '../../src/store/load-file.js';
import { SESSION_SCHEMA_VERSION } from '../../src/store/session-file.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { storedDocumentText } from '../helpers/stored-document.js';

let data = '';
let id = '';

function troupe(...args: string[]) {
  return runCli(args, cleanEnv({ TROUPE_DATA_DIR: data }), '', { cwd: data });
}

/** Writes a copy of the stored session under another id, with its document edited. */
function copyAs(newId: string, edit: (doc: any) => void): string {
  const path = join(data, 'sessions', `${newId}.json`);
  const doc = JSON.parse(latestDocument(id));
  doc.id = newId;
  edit(doc);
  writeFileSync(path, JSON.stringify(doc));
  copyFileSync(join(data, 'sessions', `${id}.jsonl`), join(data, 'sessions', `${newId}.jsonl`));
  return path;
}

/** A stored session's document as its last checkpoint left it: its newest slot (see checkpoint-slots.ts). */
function latestDocument(of: string): string {
  return storedDocumentText(join(data, 'sessions', `${of}.json`));
}

beforeAll(async () => {
  data = mkdtempSync(join(tmpdir(), 'troupe-cli-'));
  const run = await troupe('run', '--demo', 'A lighthouse keeper game');
  expect(run.code).toBe(0);
  id = /session (\S+) saved — continue it with: troupe resume (\S+)/.exec(run.stdout)![1]!;
});
afterAll(() => rmSync(data, { recursive: true, force: true }));

describe('session commands', () => {
  it('troupe run stores the session under TROUPE_DATA_DIR: a small document with its checkpoint slots, an append-only journal and its lock, released', () => {
    expect(
      readdirSync(join(data, 'sessions'))
        .filter((f) => !f.startsWith('index'))
        .sort(),
    ).toEqual([`${id}.json`, `${id}.jsonl`, `${id}.lock`]);
    expect(readFileSync(join(data, 'sessions', `${id}.lock`), 'utf8').trim()).toBe('released');
    const file = parseSessionFile(latestDocument(id), 'x').file;
    expect(file.checkpoint.snapshot.turn).toBe(10);
    expect(file.brief).toBe('A lighthouse keeper game');
    const journal = readFileSync(join(data, 'sessions', `${id}.jsonl`), 'utf8');
    expect(journal).not.toContain('agent_delta');
    // One line per step (schema 6: a turn's usage and the call it starts are in its step's line): 10 turns, the brief, the pause.
    expect(journal.trim().split('\n').length).toBeGreaterThan(10);
  });

  it('troupe sessions lists id, started, brief, state, turns, status and cost', async () => {
    const out = await troupe('sessions');
    expect(out.code).toBe(0);
    const [header, row] = out.stdout.trim().split('\n');
    expect(header).toMatch(/^ID\s+STARTED\s+BRIEF\s+STATE\s+TURNS\s+STATUS\s+COST$/);
    expect(row).toContain(id.slice(0, 8));
    expect(row).toMatch(/A lighthouse keeper game\s+USER_INTERACTION\.user\s+10\s+waiting: complete\s+free \(demo model\)$/);
  });

  it('troupe show prints the transcript and every transition with its arbitration', async () => {
    const out = await troupe('show', id.slice(0, 8));
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Brief: A lighthouse keeper game');
    expect(out.stdout).toMatch(/Decisions:\n/);
    expect(out.stdout).toMatch(/TECHNICAL › Lead Engineer -> STRATEGIC › CFO \[rule\].*\n\s+arbiter: CEO 0\.64 \[agent\], CFO 0\.76 \[rule\] ✓/);
    expect(out.stdout).toContain('Game Designer sent back Creative Partner');
  });

  it('troupe export writes Markdown or the JSON document; a bad format is a usage error', async () => {
    const md = await troupe('export', id, '--format', 'md');
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^# troupe session /);
    expect(md.stdout).toContain('## Decisions');
    expect(md.stdout).toContain('### Turn 2 · CREATIVE › Game Designer');
    const json = await troupe('export', id, '--format', 'json');
    const exported = JSON.parse(json.stdout);
    expect(exported.id).toBe(id);
    expect(exported.events.length).toBeGreaterThan(20);
    // The format as a positional word too: `troupe export <id> json` is JSON, not Markdown.
    const positional = await troupe('export', id, 'json');
    expect(positional.code).toBe(0);
    expect(JSON.parse(positional.stdout)).toEqual(exported);
    expect((await troupe('export', id, 'md')).stdout).toBe(md.stdout);
    // Scores are stored rounded: no float noise in the export.
    expect(json.stdout).not.toMatch(/"score": \d\.\d{5,}/);
    const bad = await troupe('export', id, '--format', 'xml');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('format must be md or json');
  });

  it('troupe resume opens the latest session; one waiting for the user says so', async () => {
    const out = await troupe('resume');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`resuming session ${id}`);
    expect(out.stdout).toContain('◂ waiting for you: CEO declared the work complete');
  });

  it('show and export print what they can of a hand-edited journal, noting each malformed event in one line', async () => {
    const path = copyAs('zz-edited', () => {});
    const journal = join(data, 'sessions', 'zz-edited.jsonl');
    // As read back (from format 7 an event of a usual layout is stored as a row, from format 8 a step's events are replayed), edited, then written whole.
    const records = (await new LowdbStore(data).read('zz-edited')).records as ReturnType<typeof JSON.parse>[];
    const events = records.flatMap((r) => r.events);
    const arb = events.findIndex((e: { type: string }) => e.type === 'arbitration');
    const dir = events.findIndex((e: { type: string }) => e.type === 'directive');
    delete events[arb].decision;
    delete events[dir].directive;
    // Written as a troupe with other event shapes would write it: sealed and chained (a bare edit is refused, see journal-integrity.test.ts).
    let prev = CHAIN_START;
    const lines = records.map(({ prev: _p, hash: _h, ...record }) => {
      const sealed = sealLine(JSON.stringify(record), prev);
      prev = sealed.hash;
      return sealed.line;
    });
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    doc.checkpoint.hash = prev;
    writeFileSync(path, JSON.stringify(doc));
    const text = `${lines.join('\n')}\n`;
    writeFileSync(journal, text);
    const show = await troupe('show', 'zz-edited');
    expect(show.stderr).toBe('');
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`! events[${arb}] (arbitration) is malformed and was skipped — decision: `);
    expect(show.stdout).toContain(`! events[${dir}] (directive) is malformed and was skipped — directive: `);
    expect(show.stdout).toContain('Decisions:');
    const md = await troupe('export', 'zz-edited', '--format', 'md');
    expect(md.code).toBe(0);
    expect(md.stdout).toContain(`> **note:** events[${arb}] (arbitration) is malformed and was skipped`);
    expect((await troupe('export', 'zz-edited', '--format', 'json')).code).toBe(0);
    expect((await troupe('sessions')).stdout).toMatch(/^zz-edite\s/m);
    expect(readFileSync(journal, 'utf8')).toBe(text);
    rmSync(path);
    rmSync(journal);
  });

  it('troupe resume without an id skips a newer session that has ended', async () => {
    const path = copyAs('zz-ended', (doc) => {
      doc.updatedAt = '2999-01-01T00:00:00.000Z';
      Object.assign(doc.checkpoint.snapshot, { id: 'zz-ended', status: 'ended', endReason: 'user quit' });
    });
    const out = await troupe('resume');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`resuming session ${id}`);
    expect((await troupe('show')).stdout).toMatch(/^session zz-ended /);
    rmSync(path);
    rmSync(path.replace(/\.json$/, '.jsonl'));
  });

  it('unknown ids and unreadable files get one-line errors, and the file is left as it is', async () => {
    const missing = await troupe('show', 'nope');
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('troupe: no session "nope" — run troupe sessions to list them');
    const path = copyAs('zz-newer', (doc) => {
      doc.schema = 99;
    });
    const newer = readFileSync(path, 'utf8');
    for (const cmd of [
      ['show', 'zz-newer'],
      ['resume', 'zz-newer'],
    ]) {
      const out = await troupe(...cmd);
      expect(out.code).toBe(1);
      expect(out.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`zz-newer\\.json: schema version 99 is newer than this troupe supports \\(${SESSION_SCHEMA_VERSION}\\) — upgrade troupe`)),
      ]);
    }
    expect(readFileSync(path, 'utf8')).toBe(newer);
    expect((await troupe('sessions')).stdout).toMatch(/! zz-newer: unreadable — .*schema version 99/);
    rmSync(path);
  });
});

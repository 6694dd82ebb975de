import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSessionFile } from '../../src/store/load-file.js';
import { REPO_ROOT } from '../helpers/team.js';

const CLI = join(REPO_ROOT, 'dist', 'cli.js');
let data = '';
let id = '';

function troupe(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, TROUPE_DATA_DIR: data };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  return spawnSync(process.execPath, [CLI, ...args], { cwd: data, env, encoding: 'utf8' });
}

beforeAll(() => {
  data = mkdtempSync(join(tmpdir(), 'troupe-cli-'));
  const run = troupe('run', '--demo', 'A lighthouse keeper game');
  expect(run.status).toBe(0);
  id = /session (\S+) saved — continue it with: troupe resume (\S+)/.exec(run.stdout)![1]!;
});
afterAll(() => rmSync(data, { recursive: true, force: true }));

describe('session commands', () => {
  it('troupe run stores the session under TROUPE_DATA_DIR and prints its id', () => {
    expect(readdirSync(join(data, 'sessions'))).toEqual([`${id}.json`]);
    const file = parseSessionFile(readFileSync(join(data, 'sessions', `${id}.json`), 'utf8'), 'x').file;
    expect(file.snapshot.turn).toBe(10);
    expect(file.brief).toBe('A lighthouse keeper game');
    expect(file.events.some((e) => e.type === 'agent_delta')).toBe(false);
  });

  it('troupe sessions lists id, started, brief, state, turns, status and cost', () => {
    const out = troupe('sessions');
    expect(out.status).toBe(0);
    const [header, row] = out.stdout.trim().split('\n');
    expect(header).toMatch(/^ID\s+STARTED\s+BRIEF\s+STATE\s+TURNS\s+STATUS\s+COST$/);
    expect(row).toContain(id.slice(0, 8));
    expect(row).toMatch(/A lighthouse keeper game\s+USER_INTERACTION\.user\s+10\s+waiting: complete\s+\d+ tok/);
  });

  it('troupe show prints the transcript and every transition with its arbitration', () => {
    const out = troupe('show', id.slice(0, 8));
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('Brief: A lighthouse keeper game');
    expect(out.stdout).toMatch(/Decisions:\n/);
    expect(out.stdout).toMatch(/TECHNICAL › Lead Engineer -> STRATEGIC › CFO \[rule\].*\n\s+arbiter: CEO 0\.64 \[agent\], CFO 0\.76 \[rule\] ✓/);
    expect(out.stdout).toContain('Game Designer sent back Creative Partner');
  });

  it('troupe export writes Markdown or the JSON document; a bad format is a usage error', () => {
    const md = troupe('export', id, '--format', 'md');
    expect(md.status).toBe(0);
    expect(md.stdout).toMatch(/^# troupe session /);
    expect(md.stdout).toContain('## Decisions');
    expect(md.stdout).toContain('### Turn 2 · CREATIVE › Game Designer');
    const json = troupe('export', id, '--format', 'json');
    expect(parseSessionFile(json.stdout, 'stdout').file.id).toBe(id);
    const bad = troupe('export', id, '--format', 'xml');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--format must be md or json');
  });

  it('troupe resume opens the latest session; one waiting for the user says so', () => {
    const out = troupe('resume');
    expect(out.status).toBe(0);
    expect(out.stdout).toContain(`resuming session ${id}`);
    expect(out.stdout).toContain('⏸ waiting for you: CEO declared the work complete');
  });

  it('show and export print what they can of a hand-edited file, noting each malformed event in one line', () => {
    const source = join(data, 'sessions', `${id}.json`);
    const path = join(data, 'sessions', 'zz-edited.json');
    const doc = JSON.parse(readFileSync(source, 'utf8'));
    doc.id = 'zz-edited';
    const arb = doc.events.findIndex((e: { type: string }) => e.type === 'arbitration');
    const dir = doc.events.findIndex((e: { type: string }) => e.type === 'directive');
    delete doc.events[arb].decision;
    delete doc.events[dir].directive;
    const text = JSON.stringify(doc);
    writeFileSync(path, text);
    const show = troupe('show', 'zz-edited');
    expect(show.stderr).toBe('');
    expect(show.status).toBe(0);
    expect(show.stdout).toContain(`! events[${arb}] (arbitration) is malformed and was skipped — decision: `);
    expect(show.stdout).toContain(`! events[${dir}] (directive) is malformed and was skipped — directive: `);
    expect(show.stdout).toContain('Decisions:');
    const md = troupe('export', 'zz-edited', '--format', 'md');
    expect(md.status).toBe(0);
    expect(md.stdout).toContain(`> **note:** events[${arb}] (arbitration) is malformed and was skipped`);
    expect(troupe('export', 'zz-edited', '--format', 'json').status).toBe(0);
    expect(troupe('sessions').stdout).toMatch(/^zz-edite\s/m);
    expect(readFileSync(path, 'utf8')).toBe(text);
    rmSync(path);
  });

  it('troupe resume without an id skips a newer session that has ended', () => {
    const path = join(data, 'sessions', 'zz-ended.json');
    const doc = JSON.parse(readFileSync(join(data, 'sessions', `${id}.json`), 'utf8'));
    Object.assign(doc, { id: 'zz-ended', updatedAt: '2999-01-01T00:00:00.000Z' });
    Object.assign(doc.snapshot, { id: 'zz-ended', status: 'ended', endReason: 'user quit' });
    writeFileSync(path, JSON.stringify(doc));
    const out = troupe('resume');
    expect(out.status).toBe(0);
    expect(out.stdout).toContain(`resuming session ${id}`);
    expect(troupe('show').stdout).toMatch(/^session zz-ended /);
    rmSync(path);
  });

  it('unknown ids and unreadable files get one-line errors, and the file is left as it is', () => {
    const missing = troupe('show', 'nope');
    expect(missing.status).toBe(1);
    expect(missing.stderr.trim()).toBe('troupe: no session "nope" — run troupe sessions to list them');
    const path = join(data, 'sessions', 'zz-newer.json');
    const newer = JSON.stringify({ ...JSON.parse(readFileSync(join(data, 'sessions', `${id}.json`), 'utf8')), id: 'zz-newer', schema: 99 });
    writeFileSync(path, newer);
    for (const cmd of [['show', 'zz-newer'], ['resume', 'zz-newer']]) {
      const out = troupe(...cmd);
      expect(out.status).toBe(1);
      expect(out.stderr.trim().split('\n')).toEqual([expect.stringMatching(/zz-newer\.json: schema version 99 is newer than this troupe supports \(1\) — upgrade troupe/)]);
    }
    expect(readFileSync(path, 'utf8')).toBe(newer);
    expect(troupe('sessions').stdout).toMatch(/! zz-newer: unreadable — .*schema version 99/);
    rmSync(path);
  });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { SessionDocument } from '../../src/store/session-file.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { comparable, uninterrupted, runUntilWaiting } from './support.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a session killed right after a turn ends waiting (issue 23, items 2 and 6)', () => {
  it('its document is behind (not waiting), yet it lists as waiting and resumes exactly where its journal ends', async () => {
    const reference = await uninterrupted(new MemoryStore(), 'ref');
    expect(reference.final.status).toBe('awaiting_user');
    const dataDir = mkdtempSync(join(tmpdir(), 'troupe-waitkill-'));
    dirs.push(dataDir);
    const id = 'waitkill';
    expect(await runUntilWaiting(dataDir, id)).toBe('WAITING awaiting_user');

    // The wait was not written to the document (it goes by the once-a-second rule, and the document by 32 lines): only the journal holds it.
    const doc = JSON.parse(readFileSync(join(dataDir, 'sessions', `${id}.json`), 'utf8')) as SessionDocument;
    expect(doc.checkpoint.snapshot.status).not.toBe('awaiting_user');
    expect(doc.checkpoint.records).toBeLessThan(32);
    const env = cleanEnv({ TROUPE_DATA_DIR: dataDir });

    const listed = await runCli(['sessions'], env, '', { cwd: dataDir });
    expect(listed.code).toBe(0);
    const row = listed.stdout.split('\n').find((l) => l.startsWith(id.slice(0, 8)))!;
    expect(row).toContain('waiting: ');
    expect(row).not.toContain('interrupted');
    expect(row).toContain(` ${reference.final.turn} `);

    // `troupe show` names it waiting too.
    const shown = await runCli(['show', id], env, '', { cwd: dataDir });
    expect(shown.stdout.split('\n')[1]).toContain(`${reference.final.turn} turns · waiting: `);
    // And `troupe export`: its fields and its deliverables.
    const exported = await runCli(['export', id, 'json'], env, '', { cwd: dataDir });
    expect(JSON.parse(exported.stdout).deliverables.status).toBe('awaiting_user');
    const markdown = await runCli(['export', id, 'md'], env, '', { cwd: dataDir });
    expect(markdown.stdout).toContain('| status | waiting: ');

    // Resumed with no input: no turn is run again, and it is stored as the uninterrupted run left it.
    const resumed = await runCli(['resume', id, '--demo', '--json'], env, '', { cwd: dataDir });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).not.toContain('"type":"agent_started"');
    const after = await new LowdbStore(dataDir).read(id);
    expect(comparable(after.doc.checkpoint.snapshot)).toEqual(comparable(reference.final));
    expect(after.events.filter((e) => e.type === 'agent_started')).toHaveLength(reference.events.filter((e) => e.type === 'agent_started').length);
  }, 60_000);
});

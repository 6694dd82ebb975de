import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { restateTable } from '../../src/cli/commands/sessions-command.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// Probe of `troupe sessions`: show and export redact what they read again with the secrets of the environment
// they run in ("stored values were redacted when written, but perhaps by an older troupe or under other
// secrets"); the listing did not, so a key left in a stored brief (or status) was printed, cut to the column.

const temp = tempDirPerTest('troupe-listing-secrets-');
const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'sessions');
const SHAPED = 'sk-proj-AAAABBBBCCCCDDDDEEEEFFFF';
const PASSPHRASE = 'correcthorsebatterystaple';

/** A data dir holding the v5 fixture session with its brief (and end reason) as given, unredacted. */
function storedWithBrief(brief: string, endReason?: string): string {
  const dir = temp();
  const sessions = join(dir, 'sessions');
  mkdirSync(sessions);
  const doc = JSON.parse(readFileSync(join(FIXTURES, 'v5.json'), 'utf8'));
  doc.brief = brief;
  if (endReason !== undefined) doc.checkpoint.snapshot = { ...doc.checkpoint.snapshot, status: 'ended', endReason };
  writeFileSync(join(sessions, 'fixture-v5.json'), JSON.stringify(doc));
  copyFileSync(join(FIXTURES, 'v5.jsonl'), join(sessions, 'fixture-v5.jsonl'));
  return dir;
}

describe('troupe sessions redacts what it lists, as show and export do', () => {
  it('a key-shaped value in a stored brief is not printed, not even its first characters', async () => {
    const dir = storedWithBrief(`${SHAPED} is my key`);
    const out = await runCli(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dir }));
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('fixture-');
    expect(out.stdout).not.toContain('AAAABBBB');
    // show redacts the same brief (the reference behaviour).
    expect((await runCli(['show', 'fixture-v5'], cleanEnv({ TROUPE_DATA_DIR: dir }))).stdout).not.toContain('AAAABBBB');
  });

  it("this environment's OPENAI_API_KEY in a stored brief or end reason is not printed", async () => {
    const dir = storedWithBrief(`${PASSPHRASE} please`, `stopped: ${PASSPHRASE}`);
    const out = await runCli(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dir, OPENAI_API_KEY: PASSPHRASE }));
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('fixture-');
    expect(out.stdout).not.toContain('correcthorse');
  });

  it('the sessions of a Restate cluster are redacted the same way', () => {
    const lines = restateTable([{ id: 'abc', updatedAt: '2026-01-01T00:00:00Z', kind: 'team', brief: `${SHAPED} x`, turns: 1, status: 'ended', statusText: `ended: ${SHAPED}` } as never]);
    expect(lines.join('\n')).not.toContain('AAAABBBB');
  });
});

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';
import { storedDocumentText } from '../helpers/stored-document.js';

// A document planted in the data dir (a cloned repository's .troupe/) names a team directory of its choosing:
// show and export read only one this user's troupe recorded (sealed), as resume does, else print ids.
let data = '';
let forgedTeam = '';
let id = '';
const troupe = (...args: string[]) => runCli(args, cleanEnv({ TROUPE_DATA_DIR: data }), '', { cwd: data });

beforeAll(async () => {
  data = mkdtempSync(join(tmpdir(), 'troupe-forged-show-'));
  forgedTeam = join(data, 'their-team');
  for (const part of ['personas', 'prompts']) cpSync(join(REPO_ROOT, part), join(forgedTeam, part), { recursive: true });
  const persona = join(forgedTeam, 'personas', 'creative_partner.json');
  writeFileSync(persona, readFileSync(persona, 'utf8').replace('"Creative Partner"', '"Planted Name"'));
  const run = await troupe('run', '--demo', '--team', forgedTeam, 'A lighthouse keeper game');
  expect(run.code, run.stderr).toBe(0);
  id = /session (\S+) saved/.exec(run.stdout)![1]!;
});
afterAll(() => rmSync(data, { recursive: true, force: true }));

describe('troupe show and export of a session whose document names a team directory', () => {
  it('sealed by this troupe: the names of its team', async () => {
    const shown = await troupe('show', id);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Planted Name');
  });

  it('not sealed (planted or edited): its directory is not read, the agents are named by id, and a line on stderr says why', async () => {
    const path = join(data, 'sessions', `${id}.json`);
    const doc = JSON.parse(storedDocumentText(path));
    doc.seal = 'f'.repeat(64);
    writeFileSync(path, JSON.stringify(doc));
    for (const args of [
      ['show', id],
      ['export', id, 'md'],
    ]) {
      const out = await troupe(...args);
      expect(out.code, args.join(' ')).toBe(0);
      expect(out.stdout, args.join(' ')).not.toContain('Planted Name');
      expect(out.stdout, args.join(' ')).toContain('creative_partner');
      expect(out.stderr.trim().split('\n'), args.join(' ')).toEqual([
        expect.stringMatching(/^troupe: team\.dir: .*their-team was not recorded by your troupe .* — its agents are named by id \(troupe resume \w{8} --team <dir> vouches for a directory\)$/),
      ]);
    }
  });
});

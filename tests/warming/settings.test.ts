import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatIssue } from '../../src/config/issues.js';
import { loadTeam } from '../../src/config/load-team.js';
import { MemorySchema, WarmingSchema } from '../../src/config/team-schema.js';
import { REPO_ROOT } from '../helpers/team.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The shipped team copied, with team.json's `warming` set to `value`. */
function teamWith(value: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-warming-'));
  dirs.push(dir);
  cpSync(join(REPO_ROOT, 'personas'), join(dir, 'personas'), { recursive: true });
  cpSync(join(REPO_ROOT, 'prompts'), join(dir, 'prompts'), { recursive: true });
  const file = join(dir, 'personas', 'team.json');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), warming: value }));
  return dir;
}

describe('team.json warming settings (issue 24)', () => {
  it('takes a mode alone or the settings; defaults to predicting without warming requests', () => {
    expect(WarmingSchema.parse('prefix')).toEqual({ mode: 'prefix', min_confidence: 0.3, per_turn: 1, max_share: 1, max_tokens: null });
    expect(WarmingSchema.parse({ mode: 'prefix', max_tokens: 50_000 })).toMatchObject({ mode: 'prefix', max_tokens: 50_000, per_turn: 1 });
    expect(loadTeam(join(REPO_ROOT)).team!.team.warming).toMatchObject({ mode: 'predict' });
    expect(loadTeam(teamWith('prefix')).team!.team.warming).toMatchObject({ mode: 'prefix', max_share: 1 });
    expect(MemorySchema.parse({}).new_pins).toBe('after_turns');
  });

  it('a bad value is one line naming the file and the field', () => {
    const cases: [unknown, RegExp][] = [
      ['warm', /team\.json: warming: must be "off", "predict" or "prefix", or an object with mode, min_confidence, per_turn, max_share and max_tokens/],
      [{ mode: 'prefix', per_turn: 5 }, /team\.json: warming\.per_turn: .*<= ?3/],
      [{ mode: 'prefix', budget: 3 }, /team\.json: warming: must be .*\(no other keys\)/],
    ];
    for (const [value, message] of cases) {
      const { team, issues } = loadTeam(teamWith(value));
      expect(team).toBeNull();
      expect(issues.map(formatIssue)).toEqual([expect.stringMatching(message)]);
    }
  });
});

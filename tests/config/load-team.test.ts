import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTeam } from '../../src/config/load-team.js';
import { formatIssue } from '../../src/config/issues.js';
import { configJsonSchemas } from '../../src/kinds/json-schema.js';
import { REPO_ROOT } from '../helpers/team.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of the shipped team in a temp dir, to break on purpose. */
function copyTeam(): string {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-team-'));
  dirs.push(dir);
  cpSync(join(REPO_ROOT, 'personas'), join(dir, 'personas'), { recursive: true });
  cpSync(join(REPO_ROOT, 'prompts'), join(dir, 'prompts'), { recursive: true });
  return dir;
}
const edit = (file: string, change: (json: any) => void) => {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  change(json);
  writeFileSync(file, JSON.stringify(json));
};

describe('loadTeam', () => {
  it('loads the shipped V7 studio in roster order', () => {
    const { team, issues } = loadTeam(REPO_ROOT);
    expect(issues).toEqual([]);
    expect(team!.personas.map((p) => p.id)).toEqual(['ceo', 'cfo', 'cmo', 'creative_partner', 'game_designer', 'concept_artist', 'art_director', 'lead_engineer']);
    expect(team!.team.initial).toBe('CREATIVE.creative_partner');
    expect(team!.team.pipeline.map((p) => p.persona)).toEqual(['creative_partner', 'game_designer', 'lead_engineer']);
    for (const p of team!.personas) expect(team!.prompts[p.id]!.length).toBeGreaterThan(400);
  });

  it('reports every problem at once as file: field: problem — fix', () => {
    const dir = copyTeam();
    const p = (id: string) => join(dir, 'personas', `${id}.json`);
    edit(p('cfo'), (j) => (j.handoff_to = ['ceo', 'janitor']));
    edit(p('cmo'), (j) => (j.model = 42));
    edit(join(dir, 'personas', 'team.json'), (j) => {
      j.initial = 'CREATIVE.muse';
      j.pipeline[1].persona = 'nobody';
      j.majors[0].personas.push('game_designer');
    });
    unlinkSync(join(dir, 'prompts', 'art_director.md'));
    writeFileSync(p('ceo_copy'), JSON.stringify({ ...JSON.parse(readFileSync(p('ceo'), 'utf8')) }));
    const { team, issues } = loadTeam(dir);
    expect(team).toBeNull();
    const lines = issues.map(formatIssue);
    const has = (re: RegExp) =>
      expect(
        lines.some((l) => re.test(l)),
        `${re} in\n${lines.join('\n')}`,
      ).toBe(true);
    has(/cmo\.json: model: .* — change it to a string/);
    has(/cfo\.json: handoff_to\[1\]: unknown persona or major "janitor" — use a persona \(.*\) or a major \(/);
    has(/team\.json: initial: unknown persona "muse"/);
    has(/team\.json: pipeline\[1\]\.persona: unknown persona "nobody"/);
    has(/team\.json: majors\[1\]\.personas\[1\]: persona "game_designer" is in two majors \(STRATEGIC and CREATIVE\)/);
    // A persona whose own file is broken is reported once, not again as unknown.
    expect(lines.some((l) => l.includes('unknown persona "cmo"'))).toBe(false);
    has(/art_director\.json: prompt: prompt file .*art_director\.md is missing — create/);
    has(/ceo_copy\.json: id: duplicate persona id "ceo"/);
    expect(lines.every((l) => / — /.test(l))).toBe(true);
  });

  it('reports unreachable personas and invalid JSON', () => {
    const dir = copyTeam();
    for (const id of ['ceo', 'cfo', 'cmo', 'creative_partner', 'game_designer', 'art_director', 'lead_engineer']) {
      edit(join(dir, 'personas', `${id}.json`), (j) => (j.handoff_to = j.handoff_to.filter((t: string) => t !== 'concept_artist' && t !== 'CREATIVE')));
    }
    edit(join(dir, 'personas', 'creative_partner.json'), (j) => (j.handoff_to = ['game_designer', 'ceo']));
    edit(join(dir, 'personas', 'ceo.json'), (j) => (j.handoff_to = ['cfo', 'cmo', 'creative_partner', 'lead_engineer']));
    const { issues } = loadTeam(dir);
    expect(issues.map(formatIssue)).toEqual([expect.stringMatching(/concept_artist\.json: id: persona "concept_artist" cannot be reached from CREATIVE\.creative_partner/)]);
    writeFileSync(join(dir, 'personas', 'team.json'), '{ "name": ');
    expect(formatIssue(loadTeam(dir).issues[0]!)).toMatch(/team\.json:1:11: not valid JSON: the file ends inside an object \(a "}" is missing\) — fix the JSON syntax there/);
  });

  it('rejects misspelt keys instead of silently using defaults', () => {
    const dir = copyTeam();
    edit(join(dir, 'personas', 'team.json'), (j) => {
      j.limits = { max_turn: 3 };
      j.memroy = { enabled: false };
    });
    edit(join(dir, 'personas', 'cfo.json'), (j) => (j.handof_to = ['ceo']));
    const lines = loadTeam(dir).issues.map(formatIssue);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/team\.json: limits: Unrecognized key: "max_turn" — remove "max_turn" \(check the spelling\)/),
        expect.stringMatching(/team\.json: \(root\): Unrecognized key: "memroy"/),
        expect.stringMatching(/cfo\.json: \(root\): Unrecognized key: "handof_to"/),
      ]),
    );
  });

  it('refuses control characters in persona names, descriptions and team names (they are printed on terminals)', () => {
    const dir = copyTeam();
    edit(join(dir, 'personas', 'cfo.json'), (j) => (j.name = 'CFO\u001b]0;pwned\u0007'));
    edit(join(dir, 'personas', 'cmo.json'), (j) => (j.description = 'Markets.\r\u001b[2Kall clear'));
    edit(join(dir, 'personas', 'team.json'), (j) => (j.name = 'V7\u009b31m'));
    const lines = loadTeam(dir).issues.map(formatIssue);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/cfo\.json: name: must not hold control characters \(escape sequences, line breaks, CR, backspace\)/),
        expect.stringMatching(/cmo\.json: description: must not hold control characters \(escape sequences, CR, backspace\)/),
        expect.stringMatching(/team\.json: name: must not hold control characters/),
      ]),
    );
  });

  it('names a missing team directory', () => {
    const { issues } = loadTeam(join(tmpdir(), 'no-such-team-dir'));
    expect(formatIssue(issues[0]!)).toBe(`${join(tmpdir(), 'no-such-team-dir')}: (root): does not exist — point --team at a directory holding personas/team.json and prompts/`);
  });
});

describe('JSON Schemas', () => {
  it('schemas/*.schema.json match the zod schemas (run `npm run schemas` after changing them)', () => {
    for (const [file, text] of Object.entries(configJsonSchemas())) {
      expect(readFileSync(join(REPO_ROOT, 'schemas', file), 'utf8'), file).toBe(text);
    }
  });
});

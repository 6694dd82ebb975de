import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonSyntaxError, lineColumn } from '../../src/config/json-syntax.js';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';

// Issue 22, item 5: `troupe validate` reported the schema problems of a file and hid its cross-reference
// problems until they were fixed (1 problem, then 3 more); a JSON syntax error said "position 19".

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function copyTeam(): string {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-every-'));
  dirs.push(dir);
  cpSync(join(REPO_ROOT, 'personas'), join(dir, 'personas'), { recursive: true });
  cpSync(join(REPO_ROOT, 'prompts'), join(dir, 'prompts'), { recursive: true });
  return dir;
}
const edit = (file: string, change: (json: Record<string, unknown>) => void) => {
  const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  change(json);
  writeFileSync(file, JSON.stringify(json, null, 2));
};
const problems = (stderr: string) => stderr.trim().split('\n');

describe('troupe validate names every problem of a file in one run', () => {
  it('a persona with an unknown key and no name: its unknown handoff target and missing prompt are named too', async () => {
    const dir = copyTeam();
    edit(join(dir, 'personas', 'cmo.json'), (j) => {
      j.colour = 'blue';
      delete j.name;
      j.handoff_to = ['ceo', 'ghost'];
      j.prompt = 'nope.md';
    });
    const { code, stderr } = await runCli(['validate', '--team', dir, '--workflow', 'coder_reviewer']);
    expect(code).toBe(1);
    const cmo = join(dir, 'personas', 'cmo.json');
    expect(problems(stderr)).toEqual([
      // It said "name: Invalid input: expected string, received undefined — add the required field (string)".
      `${cmo}: name: missing — add it (a string)`,
      `${cmo}: (root): Unrecognized key: "colour" — remove "colour" (check the spelling)`,
      `${cmo}: prompt: prompt file ${join(dir, 'prompts', 'nope.md')} is missing — create ${join(dir, 'prompts', 'nope.md')} or point "prompt" at an existing file in prompts/`,
      expect.stringMatching(
        new RegExp(
          `^${cmo.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: handoff_to\\[1\\]: unknown persona or major "ghost" — use a persona \\(.*\\) or a major \\(STRATEGIC, CREATIVE, TECHNICAL, USER_INTERACTION\\)$`,
        ),
      ),
      '4 problem(s)',
    ]);
  });

  it('a mistyped handoff major is named with what was meant; a wrong type reads with its article', async () => {
    const dir = copyTeam();
    edit(join(dir, 'personas', 'ceo.json'), (j) => {
      j.handoff_to = ['STRATEGY', 'cfo'];
    });
    writeFileSync(join(dir, 'personas', 'cfo.json'), '[]');
    const { code, stderr } = await runCli(['validate', '--team', dir, '--workflow', 'coder_reviewer']);
    expect(code).toBe(1);
    const lines = problems(stderr);
    // It said 'unknown persona "STRATEGY" — use one of: <the personas>' (a major is what it takes too), and "change it to a object".
    expect(lines).toContainEqual(expect.stringMatching(/ceo\.json: handoff_to\[0\]: unknown persona or major "STRATEGY" — did you mean "STRATEGIC"\? use a persona \(/));
    expect(lines).toContainEqual(`${join(dir, 'personas', 'cfo.json')}: (root): Invalid input: expected object, received array — change it to an object`);
  });

  it('team.json with a misspelt arbiter key: its unknown pipeline persona and initial are named too', async () => {
    const dir = copyTeam();
    edit(join(dir, 'personas', 'team.json'), (j) => {
      (j.arbiter as Record<string, unknown>).wieghts = {};
      j.initial = 'CREATIVE.nobody';
      (j.pipeline as { persona: string }[])[0]!.persona = 'someone';
    });
    const { code, stderr } = await runCli(['validate', '--team', dir, '--workflow', 'coder_reviewer']);
    expect(code).toBe(1);
    const file = join(dir, 'personas', 'team.json');
    expect(problems(stderr)).toEqual([
      `${file}: arbiter: Unrecognized key: "wieghts" — remove "wieghts" (check the spelling)`,
      expect.stringMatching(/team\.json: initial: unknown persona "nobody" — use one of: /),
      expect.stringMatching(/team\.json: pipeline\[0\]\.persona: unknown persona "someone" — use one of: /),
      '3 problem(s)',
    ]);
  });

  it('a workflow with an unknown key: its transition to a state that does not exist is named too', async () => {
    const root = mkdtempSync(join(tmpdir(), 'troupe-every-wf-'));
    dirs.push(root);
    mkdirSync(join(root, 'workflows'));
    writeFileSync(
      join(root, 'workflows', 'w.json'),
      JSON.stringify(
        {
          workflow_name: 'w',
          stats: [],
          contexts: [{ name: 'c' }],
          agents: [{ agent_role: 'coder', context: 'c', role: 'assistant' }],
          states: [{ name: 'start', agent: 'coder', next_state: 'revew' }, { name: 'review' }],
        },
        null,
        2,
      ),
    );
    writeFileSync(join(root, 'workflows', 'roles.json'), JSON.stringify({ coder: { systemMessage: 'You code.' } }));
    const { code, stderr } = await runCli(['validate', '--workflow', 'w'], undefined, '', { cwd: root });
    expect(code).toBe(1);
    expect(problems(stderr)).toEqual([
      'workflows/w.json: (root): Unrecognized key: "stats" — remove "stats" (check the spelling)',
      'workflows/w.json: states[0].next_state: unknown state "revew" — did you mean "review"? (known: start, review, stop)',
      'workflows/w.json: states[1]: state "review" is unreachable from "start" — add a transition to it, or remove it',
      '3 problem(s)',
    ]);
  });

  it('a JSON syntax error is named by file:line:column', async () => {
    const dir = copyTeam();
    const file = join(dir, 'personas', 'cfo.json');
    writeFileSync(file, '{\n  "id": "cfo",\n  "name": "CFO",\n}\n');
    const { code, stderr } = await runCli(['validate', '--team', dir, '--workflow', 'coder_reviewer']);
    expect(code).toBe(1);
    expect(problems(stderr)[0]).toBe(`${file}:4:1: not valid JSON: expected a double-quoted property name, found "}" (a comma before it?) — fix the JSON syntax there`);
  });
});

describe('the JSON syntax locator', () => {
  const cases: [string, number, number, RegExp][] = [
    ['{"a": 1,}', 1, 9, /double-quoted property name, found "}"/],
    ['{"a" 1}', 1, 6, /expected ":" after a property name, found "1"/],
    ['{\n  "a": 1,\n  "b": tru\n}', 3, 8, /expected a value/],
    ['{"a": [1, 2', 1, 12, /ends inside an array \(a "\]" is missing\)/],
    ['', 1, 1, /the file is empty/],
    ['{"a":"x\u0001"}', 1, 8, /a control character \(U\+0001\) inside a string/],
    ['{"a": "line\nbreak"}', 1, 12, /a control character \(a line break\)/],
    ['[1] x', 1, 5, /unexpected "x" after the JSON value/],
    ['{"a": 01}', 1, 8, /expected "," or "}" after a property value, found "1"/],
    ['{"é": "ü", "x": 1 2}', 1, 19, /expected "," or "}"/],
    ['{"a": "\\q"}', 1, 8, /a bad escape/],
    ['{"a": "never closed}', 1, 7, /never closed/],
    ['[1, 2,]', 1, 7, /expected a value .* found "\]" \(a comma before it\?\)/],
    ['{"a": -}', 1, 7, /a number is malformed/],
  ];
  for (const [text, line, column, problem] of cases) {
    it(`${JSON.stringify(text)} breaks at ${line}:${column}`, () => {
      expect(() => JSON.parse(text)).toThrow();
      const found = jsonSyntaxError(text)!;
      expect(found.problem).toMatch(problem);
      expect(lineColumn(text, found.offset)).toEqual({ line, column });
    });
  }

  it('agrees with JSON.parse on the shipped files and on every truncation of one', () => {
    const text = readFileSync(join(REPO_ROOT, 'personas', 'team.json'), 'utf8');
    expect(jsonSyntaxError(text)).toBeNull();
    for (let cut = 0; cut < text.trimEnd().length; cut++) {
      const piece = text.slice(0, cut);
      let valid = true;
      try {
        JSON.parse(piece);
      } catch {
        valid = false;
      }
      expect(jsonSyntaxError(piece) === null).toBe(valid);
    }
  });

  it('a hostile file nesting a million arrays is located without overflowing the stack', () => {
    const text = '['.repeat(1_000_000);
    const found = jsonSyntaxError(text)!;
    expect(found).toEqual({ offset: 1_000_000, problem: 'the file ends inside an array (a "]" is missing)' });
  });
});

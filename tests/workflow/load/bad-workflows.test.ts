import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatIssue } from '../../../src/config/issues.js';
import { loadWorkflow } from '../../../src/workflow/load/load-workflow.js';
import { studio } from '../../helpers/team.js';

const team = studio().loaded;
let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A project directory with workflows/ holding the given files. */
function project(files: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), 'troupe-wf-'));
  dirs.push(root);
  for (const [name, content] of Object.entries(files)) {
    const path = join(root, 'workflows', name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return root;
}

const roles = {
  coder: { systemMessage: 'You code.' },
  reviewer: { systemMessage: 'You review.', parsingTools: [{ type: 'function', function: { name: 'review_work', parameters: { type: 'object', properties: { ok: { type: 'boolean' } } } } }] },
};
const base = {
  workflow_name: 'w',
  contexts: [{ name: 'c' }],
  agents: [{ agent_role: 'coder', context: 'c', role: 'assistant' }],
  states: [{ name: 'start', agent: 'coder', input: 'common_data.input', transition: [{ target: 'stop', condition: 'true' }] }, { name: 'stop' }],
};
const issues = (root: string, name = 'w') => loadWorkflow(name, { cwd: root, dirs: [join(root, 'workflows')], team }).issues.map(formatIssue);

describe('a workflow with problems: every one reported as file: field: problem — fix', () => {
  it('a clean one has none', () => {
    expect(issues(project({ 'roles.json': roles, 'w.json': base }))).toEqual([]);
  });

  it('unknown state, agent, context and role; did-you-mean for near misses', () => {
    const root = project({
      'roles.json': roles,
      'w.json': {
        ...base,
        agents: [
          { agent_role: 'coder', context: 'nope', role: 'assistant' },
          { agent_role: 'ghost', context: 'c', role: 'user' },
        ],
        states: [{ name: 'start', agent: 'codr', transition: [{ target: 'stpo', condition: 'true' }] }, { name: 'stop' }],
      },
    });
    const found = issues(root);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^workflows\/w\.json: agents\[0\]\.context: unknown context "nope" — use one of: c$/),
        expect.stringMatching(/agents\[1\]\.agent_role: unknown role "ghost" — define it in roles\.json/),
        expect.stringMatching(/states\[0\]\.agent: unknown agent "codr" — did you mean "coder"\?/),
        expect.stringMatching(/states\[0\]\.transition\[0\]\.target: unknown state "stpo" — did you mean "stop"\?/),
      ]),
    );
  });

  it('unreachable states and no end state', () => {
    const root = project({
      'roles.json': roles,
      'loop.json': { ...base, workflow_name: 'loop', states: [{ name: 'start', agent: 'coder', transition: [{ target: 'start', condition: 'true' }] }] },
      'island.json': { ...base, workflow_name: 'island', states: [...base.states, { name: 'island', agent: 'coder', next_state: 'stop' }] },
    });
    expect(issues(root, 'loop')).toEqual([expect.stringMatching(/states: no end state: every state has a transition onward/)]);
    expect(issues(root, 'island')).toEqual([expect.stringMatching(/states\[2\]: state "island" is unreachable from "start"/)]);
  });

  it('a sub-workflow cycle, a missing sub-workflow', () => {
    const sub = (name: string, target: string) => ({ ...base, workflow_name: name, states: [{ name: 'start', action: { sub_workflow: target }, next_state: 'stop' }, { name: 'stop' }] });
    const root = project({ 'roles.json': roles, 'a.json': sub('a', 'b'), 'b.json': sub('b', 'a'), 'm.json': sub('m', 'missing') });
    expect(issues(root, 'a')).toEqual([expect.stringMatching(/states\[0\]\.action\.sub_workflow: sub-workflows form a cycle \(workflows\/a\.json -> workflows\/b\.json -> workflows\/a\.json\)/)]);
    expect(issues(root, 'm')).toEqual([expect.stringMatching(/no workflow "missing" next to this one/)]);
  });

  it('handlers a script.js does not define, or with no script.js at all; conflicting fields', () => {
    const root = project({
      'roles.json': roles,
      'h/config.json': { ...base, workflow_name: 'h', states: [{ name: 'start', agent: 'coder', pre_handler: 'prepare', transition_handler: 'decidNext' }, { name: 'stop' }] },
      'h/script.js': 'export function prepare() {}\nexport function decideNext() { return "stop"; }\n',
      'n.json': { ...base, workflow_name: 'n', states: [{ name: 'start', agent: 'coder', input: 'x', message: 'y', pre_handler: 'prepare', next_state: 'stop', transition: [] }, { name: 'stop' }] },
    });
    expect(issues(root, 'h')).toEqual([expect.stringMatching(/states\[0\]\.transition_handler: script\.js has no function "decidNext" — did you mean "decideNext"\?/)]);
    expect(issues(root, 'n')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/states\[0\]\.message: a state has an "input" expression or a "message" template, not both/),
        expect.stringMatching(/states\[0\]\.next_state: a state has "transition" or "next_state", not both/),
        expect.stringMatching(/states\[0\]\.pre_handler: "prepare" names a script function, but the workflow has no script\.js/),
      ]),
    );
  });

  it('invalid JSON, a misspelt key, a bad roles.json, an unknown agent tool', () => {
    const root = project({
      'roles.json': { ...roles, tooly: { systemMessage: 'x', tools: ['rm_rf'] } },
      'j.json': '{ "workflow_name": "j", ',
      'k.json': { ...base, workflow_name: 'k', statez: [] },
      't.json': { ...base, workflow_name: 't', agents: [{ agent_role: 'tooly', context: 'c' }], states: [{ name: 'start', agent: 'tooly' }] },
    });
    expect(issues(root, 'j')).toEqual([expect.stringMatching(/^workflows\/j\.json:1:\d+: not valid JSON: /)]);
    expect(issues(root, 'k')).toEqual(expect.arrayContaining([expect.stringMatching(/remove "statez"/)]));
    expect(issues(root, 't')).toEqual([expect.stringMatching(/tooly\.tools: unknown tool "rm_rf" — use any of: read_file/)]);
    const badRoles = project({ 'roles.json': '[1,2]', 'w.json': base });
    expect(issues(badRoles)).toEqual(expect.arrayContaining([expect.stringMatching(/workflows\/roles\.json: \(root\):/)]));
  });

  it('a name that is not a workflow says which ones exist', () => {
    const root = project({ 'roles.json': roles, 'w.json': base });
    expect(() => issues(root, 'ww')).toThrow(/no workflow "ww" — did you mean w\? \(known: w;/);
  });
});

describe('a name the engine keeps as an object key', () => {
  // Hostile input: a context named __proto__ would be the prototype of the frame's contexts (src/workflow/run/frames.ts
  // assigns by name), and the tier gives up on that name; refused where the workflow loads, naming the field.
  it('a context, state or agent named __proto__ is refused in one line naming the field', () => {
    const root = project({
      'roles.json': roles,
      'w.json': {
        ...base,
        contexts: [{ name: '__proto__' }],
        agents: [{ agent_role: 'coder', context: '__proto__', role: 'assistant' }],
        states: [{ name: 'start', agent: 'coder', input: 'common_data.input', transition: [{ target: '__proto__', condition: 'true' }] }, { name: '__proto__' }],
      },
    });
    const found = issues(root);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^workflows\/w\.json: contexts\[0\]\.name: "__proto__" cannot name a context — /),
        expect.stringMatching(/^workflows\/w\.json: states\[1\]\.name: "__proto__" cannot name a state — /),
      ]),
    );
  });
});

describe('a workflow file of very many values', () => {
  // Hostile input (500 KB, under the 1 MiB a config may be): states that are 250,000 zeros. The schema check gathers
  // one issue per bad value, and zod's gathering overflowed the call stack: validate and run said "internal error:
  // Maximum call stack size exceeded". Refused where the file is parsed, in one line.
  it('is refused in one line naming the file, before the schema check', () => {
    const root = project({ 'roles.json': roles, 'w.json': `{"workflow_name":"w","contexts":[{"name":"c"}],"agents":[],"states":[${Array(250_000).fill('0').join(',')}]}` });
    expect(issues(root)).toEqual(['workflows/w.json: (root): holds more than 20,000 values (objects, arrays, strings, numbers) — a config needs far fewer: keep data out of it']);
  });
});

describe('a role chat whose role id looks like a path', () => {
  // Hostile input: role:../../etc/passwd was reported as "etc/passwd: agents[0].agent_role: unknown role …", as if
  // that file had been read; the chat is made in memory, so its issues name it as given.
  it('names the chat as given, not a file', () => {
    const root = project({ 'roles.json': roles });
    const found = loadWorkflow('role:../../etc/passwd', { cwd: root, dirs: [join(root, 'workflows')], team }).issues.map(formatIssue);
    expect(found).toEqual([expect.stringMatching(/^role:\.\.\/\.\.\/etc\/passwd: agents\[0\]\.agent_role: unknown role "\.\.\/\.\.\/etc\/passwd" — /)]);
  });
});

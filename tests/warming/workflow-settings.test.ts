import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../src/config/issues.js';
import { loadWorkflow } from '../../src/workflow/load/load-workflow.js';
import { studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-wfwarm-');
const team = studio().loaded;

/** Loads a one-state workflow whose file sets `warming` as given. */
function load(warming: unknown) {
  const root = temp();
  mkdirSync(join(root, 'workflows'));
  const config = {
    workflow_name: 'w',
    contexts: [{ name: 'c' }],
    agents: [{ agent_role: 'coder', context: 'c', role: 'assistant' }],
    states: [{ name: 'start', agent: 'coder', input: 'common_data.input', transition: [{ target: 'stop', condition: 'true' }] }, { name: 'stop' }],
    ...(warming !== undefined ? { warming } : {}),
  };
  writeFileSync(join(root, 'workflows', 'w.json'), JSON.stringify(config));
  writeFileSync(join(root, 'workflows', 'roles.json'), JSON.stringify({ coder: { systemMessage: 'You code.' } }));
  return loadWorkflow('w', { cwd: root, dirs: [join(root, 'workflows')], team });
}

describe('"warming" in a workflow file (issue 24)', () => {
  it('takes a mode alone or the settings, as team.json does; absent: the default', () => {
    expect(load('prefix').plan?.warming).toEqual({ mode: 'prefix', min_confidence: 0.3, per_turn: 1, max_share: 1, max_tokens: null });
    expect(load({ mode: 'prefix', max_tokens: 5000 }).plan?.warming).toMatchObject({ mode: 'prefix', max_tokens: 5000 });
    expect(load(undefined).plan?.warming).toBeUndefined();
  });

  it('a bad value is one line naming the file and the field', () => {
    const lines = load('sometimes').issues.map(formatIssue);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^workflows\/w\.json: warming: must be "off", "predict" or "prefix"/);
  });
});

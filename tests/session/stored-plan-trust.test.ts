import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storedPlanProblem } from '../../src/session/stored-plan-trust.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// The workflow a stored plan came from is loaded again the way it was first found: an entry of a workflows array
// (seed 000's workflows.json) by its name, and a role chat (`role:<id>`) by its mode.

const temp = tempDirPerTest('troupe-stored-plan-trust-');

function workflowsArray(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'roles.json'), JSON.stringify({ coder: { systemMessage: 'You code.', tools: ['read_file'] } }));
  const wf = (name: string) => ({
    workflow_name: name,
    contexts: [{ name: 'c', starting_messages: [], max_length: 1000 }],
    agents: [{ agent_role: 'coder', context: 'c', role: 'assistant' }],
    states: [{ name: 'work', agent: 'coder', input: 'common_data.input', transition: [{ target: 'stop', condition: 'true' }] }, { name: 'stop' }],
  });
  writeFileSync(join(dir, 'workflows.json'), JSON.stringify([wf('first'), wf('second')]));
  return join(dir, 'workflows.json');
}

describe('storedPlanProblem: the workflow at a stored plan source, loaded again', () => {
  it('finds an entry of a workflows array by its name, and compares its agents', () => {
    const cwd = temp();
    const file = workflowsArray(join(cwd, 'flows'));
    const plan = loadWorkflowOrThrow(`${file}#second`, { cwd, env: {} });
    expect(plan.source).toBe(file);
    expect(storedPlanProblem(plan, { cwd, env: {} })).toBeNull();
    const forged = { ...plan, agents: plan.agents.map((a) => ({ ...a, tools: [...a.tools, 'write_file'] })) };
    expect(storedPlanProblem(forged, { cwd, env: {} })).toMatch(
      /^workflow\.plan\.agents\.coder\.tools: \["read_file","write_file"\] is more than flows\/workflows\.json gives now \(\["read_file"\]\)/,
    );
  });

  it('loads a role chat again by its role', () => {
    const cwd = temp();
    mkdirSync(join(cwd, 'elsewhere'));
    const roles = join(cwd, 'elsewhere', 'mine.json');
    writeFileSync(roles, JSON.stringify({ helper: { systemMessage: 'You help.', tools: ['read_file'] } }));
    const plan = loadWorkflowOrThrow('role:helper', { cwd, env: {}, roles });
    expect(storedPlanProblem(plan, { cwd, env: {}, roles })).toBeNull();
    const forged = { ...plan, agents: plan.agents.map((a) => ({ ...a, commandPolicy: 'ask' as const })) };
    expect(storedPlanProblem(forged, { cwd, env: {}, roles })).toMatch(/^workflow\.plan\.agents\.helper\.commandPolicy: "ask" is more than role:helper gives now \("deny"\)/);
    expect(storedPlanProblem(plan, { cwd, env: {} })).toMatch(/^workflow\.plan: what its agents may do cannot be checked against role:helper, which does not load now \(.*unknown role "helper"/);
  });
});

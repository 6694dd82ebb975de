import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkflow, loadWorkflowOrThrow } from '../../../src/workflow/load/load-workflow.js';
import { workflowDirs, workflowNames } from '../../../src/workflow/load/locate.js';
import { REPO_ROOT, studio } from '../../helpers/team.js';

const team = studio().loaded;
const load = (name: string) => loadWorkflowOrThrow(name, { cwd: REPO_ROOT, team });

describe('the shipped workflows', () => {
  it('every one loads clean', () => {
    const names = workflowNames(workflowDirs(REPO_ROOT)).map((w) => w.name);
    expect(names).toEqual(expect.arrayContaining(['coder_reviewer', 'hierarchical_development', 'linear_analysis', 'conditional_review', 'iterative_refinement', 'greenlight_review']));
    for (const name of names) expect(loadWorkflow(name, { cwd: REPO_ROOT, team }).issues, name).toEqual([]);
  });

  it('coder_reviewer is seed 000 exactly, normalised: the start script, the shorthand conditions, the stop state', () => {
    // The fixtures are the seed's own text, cut out of seed 000 verbatim.
    for (const name of ['coder_reviewer', 'hierarchical_development']) {
      const seed = JSON.parse(readFileSync(join(REPO_ROOT, 'tests', 'fixtures', 'workflows', `seed-000-${name}.json`), 'utf8'));
      expect(JSON.parse(readFileSync(join(REPO_ROOT, 'workflows', `${name}.json`), 'utf8'))).toEqual(seed);
    }
    const plan = load('coder_reviewer');
    expect(plan.start).toBe('start');
    expect(plan.states.map((s) => [s.name, s.agent, s.final])).toEqual([['start', null, false], ['code', 'coder', false], ['review', 'reviewer', false], ['stop', null, true]]);
    expect(plan.states[0]!.enter).toEqual({ kind: 'statements', source: expect.stringContaining("this.common_data.current_task = 'Perform following task: '") });
    expect(plan.states[2]!.transitions[0]).toEqual({
      target: 'code',
      condition: { kind: 'expression', source: 'function.review_work.arguments.improvement_needed === true' },
      before: { kind: 'statements', source: '() => { this.common_data.current_task = function.review_work.arguments.continue_message; }' },
    });
    expect(plan.agents.find((a) => a.id === 'reviewer')).toMatchObject({ role: 'user', context: 'code_history', parsingTools: [{ name: 'review_work' }] });
  });

  it('hierarchical_development carries coder_reviewer as its sub-workflow; handlers come from script.js; personas play roles', () => {
    const plan = load('hierarchical_development');
    expect(Object.keys(plan.subWorkflows)).toEqual(['coder_reviewer']);
    expect(plan.states.find((s) => s.name === 'implementation_with_review')!.subWorkflow).toEqual({ name: 'coder_reviewer', input: { task_to_do: { kind: 'expression', source: 'common_data.technical_spec' } } });
    const iterative = load('iterative_refinement');
    expect(iterative.script).toContain('export function decideIteration');
    expect(iterative.states.find((s) => s.name === 'assess')!.decide).toEqual({ kind: 'handler', name: 'decideIteration' });
    const greenlight = load('greenlight_review');
    const cfo = greenlight.agents.find((a) => a.id === 'greenlight_cfo')!;
    expect(cfo.name).toBe('CFO');
    expect(cfo.systemMessage).toContain(team.prompts.cfo!.slice(0, 40));
    expect(cfo.parsingTools.map((t) => t.name)).toEqual(['budget_decision']);
  });
});

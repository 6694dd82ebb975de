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
    expect(plan.states.map((s) => [s.name, s.agent, s.final])).toEqual([
      ['start', null, false],
      ['code', 'coder', false],
      ['review', 'reviewer', false],
      ['stop', null, true],
    ]);
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
    expect(plan.states.find((s) => s.name === 'implementation_with_review')!.subWorkflow).toEqual({
      name: 'coder_reviewer',
      input: { task_to_do: { kind: 'expression', source: 'common_data.technical_spec' } },
    });
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

describe("seed 000's other two workflows, shipped", () => {
  it('product_manager_coder: the PM plans, the coder implements in its own context, task_approval sends it back once, then approves', async () => {
    const { runWorkflow } = await import('../../../src/index.js');
    const { ScriptedModel } = await import('../../../src/testing.js');
    const model = new ScriptedModel([
      { text: 'Task: a login form with email and password; done when both are validated.' },
      { text: 'v1: the form.' },
      { text: 'Validation is missing.', toolCalls: [{ name: 'task_approval', arguments: JSON.stringify({ approved: false, feedback: 'validate the email' }) }] },
      { text: 'v2: the form, with email validation.' },
      { text: 'Good.', toolCalls: [{ name: 'task_approval', arguments: JSON.stringify({ approved: true }) }] },
    ]);
    const result = await runWorkflow('product_manager_coder', { cwd: REPO_ROOT, model, input: 'a login form' });
    expect(result).toMatchObject({ success: true, output: 'v2: the form, with email validation.', end_reason: 'workflow product_manager_coder complete: approved after 2 iteration(s)' });
    expect(result.states_visited).toEqual(['start', 'plan', 'implement', 'approve', 'implement', 'approve', 'stop']);
    // Isolated contexts: the coder never sees the PM's conversation, only the task and the send-back.
    const coder = model.calls.filter((c) => c.meta.persona === 'coder').at(-1)!;
    expect(coder.messages.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual([
      'Task: a login form with email and password; done when both are validated.',
      'v1: the form.',
      'The product manager sent it back: validate the email. Revise your implementation.',
    ]);
  });

  it('parallel_analysis_shared: two analysts build on one shared conversation for two rounds, then a synthesiser concludes from it', async () => {
    const { runWorkflow } = await import('../../../src/index.js');
    const { ScriptedModel } = await import('../../../src/testing.js');
    const model = new ScriptedModel(
      ['S1: tokens leak in logs.', 'P1: the token check adds 40 ms.', 'S2: rotate keys.', 'P2: cache the check.', 'Conclusion: redact logs, rotate keys, cache checks.'].map((text) => ({ text })),
    );
    const result = await runWorkflow('parallel_analysis_shared', { cwd: REPO_ROOT, model, input: 'a new public API' });
    expect(result).toMatchObject({ success: true, output: 'Conclusion: redact logs, rotate keys, cache checks.' });
    expect(result.states_visited).toEqual(['start', 'security', 'performance', 'security', 'performance', 'synthesise', 'stop']);
    const synthesis = model.calls.at(-1)!;
    expect(synthesis.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([
      'S1: tokens leak in logs.',
      'P1: the token check adds 40 ms.',
      'S2: rotate keys.',
      'P2: cache the check.',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { initialState, step } from '../../../src/engine/step.js';
import { compileWorkflow } from '../../../src/workflow/run/compile.js';
import { inputProblem } from '../../../src/workflow/run/frames.js';
import type { WorkflowPlan } from '../../../src/workflow/run/plan.js';
import { state, workflowPlan } from '../../helpers/workflow-plan.js';

const plan: WorkflowPlan = workflowPlan({
  name: 'takes_object',
  input: { name: 'task', type: 'object' },
  states: [state({ name: 'start', enter: { kind: 'statements', source: 'this.common_data.output = 1' } })],
  start: 'start',
});
const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;

describe('a workflow input nested deeper than workflow data may be', () => {
  it('is named by inputProblem (launchers refuse it before a session exists); text input is never JSON, so never too deep', () => {
    expect(inputProblem(plan, deep)).toBe('the input of workflow takes_object nests deeper than 100 levels of objects and arrays (at a.a.a.a…): give it flatter JSON');
    expect(inputProblem(plan, '{"a": {"b": [1]}}')).toBeNull();
    expect(inputProblem({ ...plan, input: { name: 'task' } }, deep)).toBeNull();
  });

  it('given to a session anyway, ends it failed with that line, without taking the input in', () => {
    const def = compileWorkflow(plan);
    const { session, effects } = step(def, initialState(def, { id: 'w' }), { type: 'start', brief: deep });
    expect(session.status).toBe('ended');
    expect(session.endReason).toBe(inputProblem(plan, deep));
    expect(session.workflow!.error).toBe(session.endReason);
    expect(session.workflow!.frames[0]!.common_data.task).toBe('');
    expect(effects.some((fx) => fx.type === 'evaluate')).toBe(false);
  });
});

describe('a workflow input holding a __proto__ key', () => {
  it('is named by inputProblem with where it lies; a key that only looks like it, or text input, is not', () => {
    expect(inputProblem(plan, '{"__proto__": {"polluted": 1}}')).toBe('the input of workflow takes_object has a key "__proto__", which workflow data may not have: rename it');
    expect(inputProblem(plan, '{"a": {"b": [{"__proto__": 1}]}}')).toBe('the input of workflow takes_object has a key "__proto__" (in a.b[0]), which workflow data may not have: rename it');
    expect(inputProblem(plan, '{"proto": 1, "__proto": 2, "constructor": {"prototype": 3}}')).toBeNull();
    expect(inputProblem({ ...plan, input: { name: 'task' } }, '{"__proto__": 1}')).toBeNull();
  });
});

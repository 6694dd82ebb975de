import { describe, expect, it } from 'vitest';
import { complete } from '../../src/commands/complete.js';
import { inspect } from '../../src/commands/inspect.js';
import { parseLine } from '../../src/commands/parse.js';
import { situation } from '../../src/commands/situation.js';
import { sessionUsage } from '../../src/usage/session-usage.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { initialState } from '../../src/engine/step.js';
import { toMermaid } from '../../src/report/mermaid.js';
import { teamOf } from '../../src/team/team-settings.js';
import { compileWorkflow } from '../../src/workflow/run/compile.js';
import type { WorkflowPlan } from '../../src/workflow/run/plan.js';
import { state, workflowPlan } from '../helpers/workflow-plan.js';

/** A workflow of one final state: enough to read its definition. */
const plan: WorkflowPlan = workflowPlan({
  name: 'tiny',
  input: { name: 'task' },
  output: { name: 'result' },
  states: [state({ name: 'stop', final: true })],
  start: 'stop',
});

describe('team commands on a workflow definition (it has no team settings)', () => {
  const def = compileWorkflow(plan);
  const session = initialState(def, { id: 'w' });

  it('carries no team settings, and the team policy refuses to read them', () => {
    expect(def.team).toBeUndefined(); // the team policy's slot of the definition: a workflow has none
    expect(() => teamOf(def)).toThrow('routing: tiny has no team settings');
  });

  it('!switch_to is passed on unresolved (the workflow policy answers it), and Tab offers no majors', () => {
    expect(parseLine('!switch_to STRATEGIC', def)).toEqual({ kind: 'engine', name: 'switch_to', args: ['STRATEGIC'], input: { type: 'user_switch_major', major: 'STRATEGIC' } });
    expect(complete('!switch_to S', def)).toEqual({ line: '!switch_to S', candidates: [] });
  });

  it("!status shows the gates as automatic, and the situation is the workflow's", () => {
    expect(inspect('status', { def, session, events: [], usage: sessionUsage(new UsageMeter()) }).lines).toContain('mode: FSM · approval gates: auto · turn 0/100');
    expect(situation(def, session)).toEqual({ current: 'tiny', next: null, status: 'waiting for the workflow input' });
  });

  it('the team diagram has no majors and no rules', () => {
    expect(toMermaid(def)).toBe('stateDiagram-v2\n  [*] --> ');
  });
});

import { describe, expect, it } from 'vitest';
import { widenedGrant } from '../../src/session/plan-grants.js';
import type { AgentPlan, WorkflowPlan } from '../../src/workflow/run/plan.js';
import { state, workflowPlan } from '../helpers/workflow-plan.js';

// What a stored plan's agents may do outside the sandbox, compared with the plan its workflow file gives now
// (src/session/stored-plan-trust.ts loads it; a forged session document is the hostile input).

const agent = (a: Partial<AgentPlan> & { id: string }): AgentPlan => ({
  context: 'c',
  role: 'assistant',
  name: a.id,
  systemMessage: 'You work.',
  model: 'base',
  parsingTools: [],
  requestUserInput: false,
  tools: ['read_file'],
  maxToolSteps: 5,
  commandPolicy: 'deny',
  ...a,
});
const plan = (agents: AgentPlan[], subWorkflows: Record<string, WorkflowPlan> = {}): WorkflowPlan =>
  workflowPlan({ name: 'wf', states: [state({ name: 'stop', final: true })], start: 'stop', agents, subWorkflows });
const coder = (a: Partial<AgentPlan> = {}) => plan([agent({ id: 'coder', ...a })]);

describe('widenedGrant: a stored plan against the plan its workflow file gives now', () => {
  it('gives nothing more when they are the same, or the stored one gives less', () => {
    const now = coder({ tools: ['read_file', 'run_command'], maxToolSteps: 5, commandPolicy: { allow: ['cat', 'ls'], network: true } });
    expect(widenedGrant(now, now)).toBeNull();
    expect(widenedGrant(coder({ tools: ['read_file'], maxToolSteps: 2, commandPolicy: { allow: ['cat'] } }), now)).toBeNull();
    expect(widenedGrant(coder({ commandPolicy: 'deny' }), now)).toBeNull();
    expect(widenedGrant(coder({ commandPolicy: 'ask' }), coder({ commandPolicy: 'ask' }))).toBeNull();
  });

  it('lets prompts, models and parsing tools differ (they do not act on the host)', () => {
    const stored = coder({ systemMessage: 'An older prompt.', model: 'smart', parsingTools: [{ name: 'done', description: '', parameters: {} }], name: 'Old' });
    expect(widenedGrant(stored, coder())).toBeNull();
  });

  it('names a tool the file does not give the agent', () => {
    expect(widenedGrant(coder({ tools: ['read_file', 'run_command'] }), coder())).toEqual({
      field: 'workflow.plan.agents.coder.tools',
      stored: '["read_file","run_command"]',
      current: '["read_file"]',
    });
    expect(widenedGrant(coder({ requestUserInput: true }), coder())?.field).toBe('workflow.plan.agents.coder.requestUserInput');
  });

  it('names more tool steps than the file gives', () => {
    expect(widenedGrant(coder({ maxToolSteps: 500 }), coder({ maxToolSteps: 5 }))).toMatchObject({ field: 'workflow.plan.agents.coder.maxToolSteps', stored: '500', current: '5' });
  });

  it('names a command policy wider than the file gives: deny to ask or to an allow-list', () => {
    const refused = (stored: AgentPlan['commandPolicy'], current: AgentPlan['commandPolicy']) => widenedGrant(coder({ commandPolicy: stored }), coder({ commandPolicy: current }))?.field;
    expect(refused('ask', 'deny')).toBe('workflow.plan.agents.coder.commandPolicy');
    expect(refused({ allow: ['cat'] }, 'deny')).toBe('workflow.plan.agents.coder.commandPolicy');
    expect(refused({ allow: [] }, 'deny')).toBe('workflow.plan.agents.coder.commandPolicy');
    // An absent policy is deny (as the loader writes it).
    expect(refused({ allow: ['cat'] }, undefined)).toBe('workflow.plan.agents.coder.commandPolicy');
    // Ask and an allow-list do not hold each other: one asks for any program, the other runs its own unasked.
    expect(refused('ask', { allow: ['cat'] })).toBe('workflow.plan.agents.coder.commandPolicy');
    expect(refused({ allow: ['cat'] }, 'ask')).toBe('workflow.plan.agents.coder.commandPolicy');
  });

  it('names an allow-list with a program the file does not allow, and the network turned on', () => {
    expect(widenedGrant(coder({ commandPolicy: { allow: ['cat', 'sh'] } }), coder({ commandPolicy: { allow: ['cat'] } }))).toEqual({
      field: 'workflow.plan.agents.coder.commandPolicy',
      stored: '{"allow":["cat","sh"]}',
      current: '{"allow":["cat"]}',
    });
    expect(widenedGrant(coder({ commandPolicy: { allow: ['cat'], network: true } }), coder({ commandPolicy: { allow: ['cat'] } }))?.field).toBe('workflow.plan.agents.coder.commandPolicy');
    expect(widenedGrant(coder({ commandPolicy: { allow: ['cat'], network: true } }), coder({ commandPolicy: { allow: ['cat'], network: false } }))?.field).toBe(
      'workflow.plan.agents.coder.commandPolicy',
    );
  });

  it('names an agent the file lacks', () => {
    const stored = plan([agent({ id: 'coder' }), agent({ id: 'helper', tools: [] })]);
    expect(widenedGrant(stored, coder())).toEqual({ field: 'workflow.plan.agents.helper', stored: 'an agent', current: 'no such agent' });
  });

  it("compares a sub-workflow's agents with the file's sub-workflow of that name, and names one the file lacks", () => {
    const sub = (a: Partial<AgentPlan>) => plan([agent({ id: 'fixer', ...a })]);
    expect(widenedGrant(plan([], { fix: sub({}) }), plan([], { fix: sub({}) }))).toBeNull();
    expect(widenedGrant(plan([], { fix: sub({ commandPolicy: 'ask' }) }), plan([], { fix: sub({}) }))?.field).toBe('workflow.plan.subWorkflows.fix.agents.fixer.commandPolicy');
    expect(widenedGrant(plan([], { fix: sub({}) }), plan([]))).toMatchObject({ field: 'workflow.plan.subWorkflows.fix', current: 'no such sub-workflow' });
  });
});

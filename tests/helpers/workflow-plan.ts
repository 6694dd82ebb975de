import type { StatePlan } from '../../src/workflow/run/plan.js';

/** A workflow expression piece (code the sandbox, or the host, evaluates). */
export const expr = (source: string) => ({ kind: 'expression' as const, source });

/** A compiled workflow state with every field at its default, overridden by `s`. */
export const state = (s: Partial<StatePlan> & { name: string }): StatePlan => ({
  enter: null,
  agent: null,
  input: null,
  action: 'send',
  after: null,
  subWorkflow: null,
  parallel: null,
  debate: null,
  transitions: [],
  decide: null,
  maxRetries: 0,
  final: false,
  ...s,
});

import { describe, expect, it } from 'vitest';
import type { Evaluation } from '../../../src/engine/evaluation.js';
import { prepareEvaluation } from '../../../src/workflow/sandbox/prepare.js';
import { DEFAULT_LIMITS } from '../../../src/workflow/sandbox/program.js';
import { expr, scopeOf } from './fixtures.js';

// Prepared jobs are cached by what they run: the plan's code objects by identity, names and field lists by
// their text. Names that hold the key's own separators must never make two evaluations share a job.
const labels = (evaluation: Evaluation): string[] => {
  const prepared = prepareEvaluation(evaluation, null, DEFAULT_LIMITS);
  if (!prepared.ok) throw new Error(prepared.error);
  return prepared.job.parts.flatMap((p) => (JSON.parse(p.program) as { transitions: { condition: { label: string } }[] }).transitions.map((t) => t.condition.label));
};
type Transitions = NonNullable<Evaluation['transitions']>;
const decision = (workflow: string, state: string, target: string, condition = expr('common_data.n > 1'), transitions: Transitions = [{ condition, before: null, target }]): Evaluation => ({
  workflow,
  state,
  purpose: 'transitions',
  transitions,
  scope: scopeOf(),
});

describe('the prepared-job cache', () => {
  it('tells apart names that run into each other and names holding separators', () => {
    const condition = expr('common_data.n > 1');
    const cases: [string, string, string][] = [
      ['wf', 'a,b', 'c'],
      ['wf', 'a', 'b,c'],
      ['wf', 'a;1', 'c'],
      ['wf,1', 'a', 'c'],
      ['wf', '3:abc', 'c'],
      ['wf', 'a\0b', 'c'],
      ['wf', 'a', 'b\0c'],
    ];
    for (const [workflow, state, target] of cases) expect(labels(decision(workflow, state, target, condition))).toEqual([`condition of ${state} → ${target}`]);
  });

  it("the plan's same transitions give the cached job; equal ones in other objects give an equal one", () => {
    const condition = expr('common_data.n > 1');
    const transitions: Transitions = [{ condition, before: null, target: 't' }];
    const first = prepareEvaluation(decision('wf', 's', 't', condition, transitions), null, DEFAULT_LIMITS);
    expect(prepareEvaluation(decision('wf', 's', 't', condition, transitions), null, DEFAULT_LIMITS)).toBe(first);
    expect(prepareEvaluation(decision('wf', 's', 't', expr('common_data.n > 1')), null, DEFAULT_LIMITS)).toEqual(first);
    expect(labels(decision('wf', 's', 't', expr('common_data.n > 2')))).toEqual(['condition of s → t']);
  });
});

import { describe, expect, it } from 'vitest';
import type { Evaluation, Scope } from '../../../src/engine/evaluation.js';
import { DEFAULT_LIMITS } from '../../../src/workflow/sandbox/index.js';
import { hostTierCounts, runInTier } from '../../../src/workflow/sandbox/tier/run.js';
import { expr, handler, stmts } from './fixtures.js';

// The tier remembers, per program (its code object, and the script.js it ran with), that it gave up on the code
// itself (a name or form it does not model, whatever the data): that program then goes to the sandbox at once.
// A give-up that depended on the data (a value's type, a size, a budget, a key computed from data) is not
// remembered: the same program runs in the tier on other data.

const scope = (common_data: Record<string, unknown>): Scope => ({ common_data, input: null, contexts: { c: [] }, agents: {}, last_agent_response: null, last_tool_calls: [] });
const evaluation = (code: Evaluation['code'], common_data: Record<string, unknown> = {}): Evaluation => ({ workflow: 'wf', state: 's', purpose: 'input', code, scope: scope(common_data) });

// Runs it and tells whether the tier answered, gave up trying, or did not try (a refusal it remembered).
function outcome(e: Evaluation, script: string | null = null): 'answered' | 'gave up' | 'not tried' {
  const refused = hostTierCounts.refused;
  const result = runInTier(e, script, DEFAULT_LIMITS);
  if (result) return 'answered';
  return hostTierCounts.refused > refused ? 'not tried' : 'gave up';
}

describe('refusals the tier remembers per program', () => {
  it.each([
    ['a free name the tier does not model', 'setTimeout'],
    ['a member of this it does not model', 'this.toString()'],
    ['a context method it does not model', "getContext('c').getStats()"],
    ['a method of strings it does not implement', "'b,a'.localeCompare('a')"],
    ['a method of arrays it does not implement', '[2, 1].sort()'],
    ['a global it does not implement', 'Math.random()'],
    ['a thisArg', '[1].map((x) => x, 1)'],
  ])('%s (`%s`): tried once, then left to the sandbox at once', (_name, source) => {
    const code = expr(source);
    expect(outcome(evaluation(code))).toBe('gave up');
    const why = hostTierCounts.lastBail;
    expect(outcome(evaluation(code))).toBe('not tried');
    expect(outcome(evaluation(code, { other: 'data' }))).toBe('not tried');
    expect(hostTierCounts.lastBail).toBe(why);
  });

  it('code outside the subset the tier runs is never tried', () => {
    const code = expr('this.evaluateExpression("1")');
    expect(outcome(evaluation(code))).toBe('not tried');
    expect(outcome(evaluation(code))).toBe('not tried');
  });

  it('a program is remembered by its code object: the same text in a new plan is tried afresh', () => {
    const code = expr('setTimeout');
    expect(outcome(evaluation(code))).toBe('gave up');
    expect(outcome(evaluation(expr('setTimeout')))).toBe('gave up');
  });

  it('a handler refused with one script.js is tried again with another', () => {
    const code = handler('h');
    const refusing = 'export function h() { return [2, 1].sort(); }';
    const plain = 'export function h() { return [2, 1].reverse(); }';
    expect(outcome(evaluation(code), refusing)).toBe('gave up');
    expect(outcome(evaluation(code), refusing)).toBe('not tried');
    expect(outcome(evaluation(code), plain)).toBe('answered');
  });

  it('a path not taken is no refusal: the code runs in the tier until it takes it (then it is refused)', () => {
    const code = stmts('if (common_data.rare) return setTimeout; return 1;');
    expect(outcome(evaluation(code, { rare: false }))).toBe('answered');
    expect(outcome(evaluation(code, { rare: true }))).toBe('gave up');
    expect(outcome(evaluation(code, { rare: false }))).toBe('not tried');
  });
});

describe('give-ups that depend on the data are not remembered', () => {
  it.each([
    ['a value of another type', 'common_data.v.length', { v: 5 }, { v: 'text' }],
    ['an operator on an object', 'common_data.v + 1', { v: { a: 1 } }, { v: 1 }],
    ['a read of undefined', 'common_data.v.x', {}, { v: { x: 1 } }],
    [
      'a condition of the data over the step budget',
      'common_data.n > 0 ? common_data.list.map((x) => common_data.list.map((y) => x + y)).length : 0',
      { n: 1, list: Array.from({ length: 600 }, (_, i) => i) },
      { n: 0, list: [] },
    ],
    ['a key from the data that names a prototype member', 'common_data.o[common_data.k]', { o: {}, k: 'toString' }, { o: { a: 1 }, k: 'a' }],
    ['a key from the data naming a method of this', 'this[common_data.k]', { k: 'toString' }, { k: 'common_data' }],
    ['a key from the data naming a Map method', 'this.workflow_contexts[common_data.k].name', { k: 'forEach' }, { k: 'c' }],
    ['a JSON.parse of bad text', 'JSON.parse(common_data.text).a', { text: 'nope' }, { text: '{"a": 1}' }],
  ])('%s (`%s`): given up on once, answered on other data', (_name, source, first, second) => {
    const code = expr(source);
    expect(outcome(evaluation(code, first))).toBe('gave up');
    expect(outcome(evaluation(code, second))).toBe('answered');
  });
});

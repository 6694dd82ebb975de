import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation, EvaluationResult } from '../../../src/engine/evaluation.js';
import { createSandboxEvaluator, DEFAULT_LIMITS, SandboxPool } from '../../../src/workflow/sandbox/index.js';
import { runInTier } from '../../../src/workflow/sandbox/tier/run.js';
import { codeEvaluation, expr, scopeOf, stmts } from './fixtures.js';

// Code that leaves common_data as it got it answers, from the host tier, with the very object the scope held (the
// engine keeps it, and what it counted of it stays counted); any change, or engine data that JSON would write
// otherwise, gives a copy. Either way the answer is the sandbox's, value for value and byte for byte.

const pool = new SandboxPool({ size: 1 });
const sandbox = createSandboxEvaluator({ pool });
afterAll(async () => {
  await sandbox.close();
  await pool.close();
});

type Ok = Extract<EvaluationResult, { ok: true }>;

async function both(evaluation: Evaluation): Promise<Ok> {
  const tier = runInTier(evaluation, null, DEFAULT_LIMITS);
  const guest = await sandbox.evaluate(structuredClone(evaluation));
  expect(tier).not.toBeNull();
  expect(tier).toEqual(guest);
  expect(JSON.stringify(tier)).toBe(JSON.stringify(guest));
  return tier as Ok;
}

// A list with a hole at 1 (JSON writes it null).
const holed = (): unknown[] => {
  const list = [1, 2, 3];
  delete list[1];
  return list;
};

const data = () => ({ n: 1, s: 'ü ✓', list: [1, { a: null }], nested: { deep: { x: true } } });

describe("the host tier's common_data", () => {
  it.each([
    ['code that never reaches it', 'the scope object', expr("'x' + 1")],
    ['code that only reads it', 'the scope object', expr('common_data.n + common_data.list.length')],
    ['code that reads it through variables and this', 'the scope object', expr('variables === common_data && this.common_data === common_data && this.variables.n')],
    ['a parameter read after this.common_data was replaced', 'a copy', stmts('this.common_data = { n: 2 }; this.common_data.was = common_data.n; return variables.n;')],
    ['a parameter changed, then read through this', 'a copy', stmts('common_data.n = 5; return this.common_data.n;')],
    ['code that writes back what was there', 'the scope object', stmts('this.common_data.n = 1; common_data.nested.deep.x = true;')],
    ['code that changes a copy of it', 'the scope object', stmts('const c = JSON.parse(JSON.stringify(common_data)); c.n = 2; return c.n;')],
    ['common_data replaced by an equal object', 'the scope object', stmts('this.common_data = { n: 1, s: "ü ✓", list: [1, { a: null }], nested: { deep: { x: true } } }')],
    ['a member changed', 'a copy', stmts('this.common_data.n = 2')],
    ['a member added', 'a copy', stmts('this.common_data.m = 0')],
    ['a member left out', 'a copy', stmts('this.common_data = { n: common_data.n, list: common_data.list, nested: common_data.nested }')],
    ['a nested member changed', 'a copy', stmts('this.common_data.list[1].a = 0')],
    ['the same members in another order', 'a copy', stmts('this.common_data = { s: common_data.s, n: common_data.n, list: common_data.list, nested: common_data.nested }')],
    ['a list grown', 'a copy', stmts('this.common_data.list.push(3)')],
    ['a member set to undefined', 'a copy', stmts('this.common_data.n = undefined')],
    ['a -0 added', 'a copy', stmts('this.common_data.z = -0')],
    ['common_data replaced by an object with one more member', 'a copy', stmts('this.common_data = { n: 1, s: "ü ✓", list: [1, { a: null }], nested: { deep: { x: true } }, extra: 1 }')],
  ])('%s: answers with %s', async (_name, answer, code) => {
    const evaluation = codeEvaluation(code, scopeOf({ common_data: data() }));
    const tier = await both(evaluation);
    expect(tier.common_data === evaluation.scope.common_data).toBe(answer === 'the scope object');
  });

  it.each([
    ['-0', { n: -0 }],
    ['NaN', { n: Number.NaN }],
    ['Infinity in a list', { list: [Number.POSITIVE_INFINITY] }],
    ['an undefined member', { n: 1, gone: undefined }],
    ['an undefined element', { list: [1, undefined] }],
    ['a hole', { list: holed() }],
  ])('engine data JSON writes otherwise (%s): a copy as JSON makes it, never the object', async (_name, common_data) => {
    const evaluation = codeEvaluation(expr('1'), scopeOf({ common_data: common_data as Record<string, unknown> }));
    const tier = runInTier(evaluation, null, DEFAULT_LIMITS) as Ok;
    expect(tier).not.toBeNull();
    expect(tier.common_data).not.toBe(evaluation.scope.common_data);
    expect(tier.common_data).toEqual(JSON.parse(JSON.stringify(common_data)));
  });

  it('a chained part that leaves it answers with what the part before left', async () => {
    const evaluation: Evaluation = {
      ...codeEvaluation(stmts('this.common_data.n = 5'), scopeOf({ common_data: data() }), 'after'),
      next: { purpose: 'decide', code: expr("common_data.n > 2 ? 'big' : 'small'"), targets: { big: { purpose: 'enter', code: expr('common_data.s') } } },
    };
    const tier = await both(evaluation);
    const second = tier.next as Ok;
    const third = second.next as Ok;
    expect(tier.common_data).not.toBe(evaluation.scope.common_data);
    expect(second.common_data).toBe(tier.common_data);
    expect(third.common_data).toBe(tier.common_data);
  });

  it('what code did to its copy never reaches the scope object', async () => {
    const evaluation = codeEvaluation(stmts('common_data.nested.deep.x = false; common_data.list.push(9); common_data.n = 1;'), scopeOf({ common_data: data() }));
    await both(evaluation);
    expect(evaluation.scope.common_data).toEqual(data());
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation, Scope } from '../../../src/engine/evaluation.js';
import { decideInHost } from '../../../src/workflow/sandbox/host-decision.js';
import { createSandboxEvaluator, SandboxPool } from '../../../src/workflow/sandbox/index.js';
import { expr, handler, scopeOf, stmts, template } from './fixtures.js';

// The sandbox itself (a pool of its own), to compare with: the host decides only what it decides the same way.
const pool = new SandboxPool({ size: 1 });
const sandbox = createSandboxEvaluator({ pool });
afterAll(async () => {
  await sandbox.close();
  await pool.close();
});

const data: Scope = scopeOf({
  common_data: { task: 'a parser', n: 3, ok: true, no: false, nothing: null, list: ['a', 'b'], nested: { deep: { x: 'y' } }, empty: '' },
  input: 'the state input',
  last_agent_response: 'the answer',
  sub_workflow_result: 'child output',
});
const request = (over: Partial<Evaluation>): Evaluation => ({ workflow: 'wf', state: 's', purpose: 'input', scope: data, ...over });

// Decided in the host: the result must be exactly the sandbox's.
const decided: { name: string; evaluation: Evaluation }[] = [
  { name: 'a null condition', evaluation: request({ purpose: 'transitions', transitions: [{ condition: null, before: null }] }) },
  {
    name: 'true, after false',
    evaluation: request({
      purpose: 'transitions',
      transitions: [
        { condition: expr('false'), before: null },
        { condition: expr(' true ;'), before: null },
      ],
    }),
  },
  {
    name: 'no transition holds',
    evaluation: request({
      purpose: 'transitions',
      transitions: [
        { condition: expr('false'), before: null },
        { condition: expr('common_data.no'), before: null },
      ],
    }),
  },
  { name: 'a path to a boolean', evaluation: request({ purpose: 'transitions', transitions: [{ condition: expr('this.common_data.ok'), before: null }] }) },
  { name: 'a path to a string', evaluation: request({ code: expr('common_data.task') }) },
  { name: 'a nested path', evaluation: request({ code: expr('variables.nested.deep.x') }) },
  { name: 'a missing key', evaluation: request({ code: expr('common_data.absent') }) },
  { name: 'an array index by name and its length', evaluation: request({ code: expr('common_data.list.length') }) },
  { name: "a string's length", evaluation: request({ code: expr('common_data.task.length') }) },
  { name: 'the input', evaluation: request({ code: expr('input') }) },
  { name: 'the last answer', evaluation: request({ code: expr('this.last_agent_response') }) },
  { name: 'a number literal', evaluation: request({ code: expr('42') }) },
  { name: 'a string literal', evaluation: request({ code: expr("'review'") }) },
  { name: 'null', evaluation: request({ code: expr('null') }) },
  {
    name: 'a template of common_data and input',
    evaluation: request({ code: template('Do {task} ({n}, {ok}, {list}, {input.task}, {common_data.nested}, {sub_workflow_result}, {last_agent_response})') }),
  },
  { name: 'a template with a missing placeholder (logged)', evaluation: request({ code: template('Hello {missing} and {nothing} and {input}') }) },
  { name: 'fields of paths and literals', evaluation: request({ purpose: 'sub_input', fields: { a: expr('common_data.task'), b: expr('3'), c: expr('common_data.absent') } }) },
];

// Left to the sandbox: code, or data the sandbox would treat otherwise (an error, an inherited property, an object).
const notDecided: { name: string; evaluation: Evaluation }[] = [
  { name: 'a condition that is code', evaluation: request({ purpose: 'transitions', transitions: [{ condition: expr('common_data.n > 2'), before: null }] }) },
  {
    name: 'a later condition that may not compile',
    evaluation: request({
      purpose: 'transitions',
      transitions: [
        { condition: null, before: null },
        { condition: expr('this is broken'), before: null },
      ],
    }),
  },
  { name: 'a transition with before-code', evaluation: request({ purpose: 'transitions', transitions: [{ condition: expr('true'), before: stmts('this.common_data.x = 1') }] }) },
  { name: 'a path to a string where a boolean is needed', evaluation: request({ purpose: 'transitions', transitions: [{ condition: expr('common_data.task'), before: null }] }) },
  { name: 'an inherited property', evaluation: request({ code: expr('common_data.constructor') }) },
  { name: 'a read of null', evaluation: request({ code: expr('common_data.nothing.x') }) },
  { name: 'an object value', evaluation: request({ code: expr('common_data.nested') }) },
  { name: 'statements', evaluation: request({ code: stmts('common_data.task') }) },
  { name: 'a handler', evaluation: request({ purpose: 'decide', code: handler('next') }) },
  { name: 'a template reading contexts', evaluation: request({ code: template('{contexts.main}') }) },
  { name: 'an error handler', evaluation: request({ purpose: 'error', code: expr("'retry'") }) },
];

describe('what the engine decides without the sandbox', () => {
  it.each(decided)('$name: the same result as the sandbox', async ({ evaluation }) => {
    const host = decideInHost(evaluation, evaluation.scope);
    expect(host).not.toBeNull();
    // The sandbox itself, made to run it: `next` keeps the evaluator from deciding it in the host.
    const chained = { ...evaluation, next: { purpose: 'input' as const, code: stmts('') } };
    const guest = await sandbox.evaluate(chained);
    expect(guest.ok).toBe(true);
    if (!guest.ok || !host?.ok) return;
    const { next: _next, ...sandboxed } = guest;
    expect(JSON.parse(JSON.stringify(host))).toEqual(sandboxed);
  });

  it.each(notDecided)('$name: left to the sandbox', ({ evaluation }) => {
    expect(decideInHost(evaluation, evaluation.scope)).toBeNull();
  });
});

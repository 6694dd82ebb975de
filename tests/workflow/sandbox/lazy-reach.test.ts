import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation, EvaluationResult } from '../../../src/engine/evaluation.js';
import { createSandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { prepareEvaluation } from '../../../src/workflow/sandbox/prepare.js';
import { DEFAULT_LIMITS, type Program } from '../../../src/workflow/sandbox/program.js';
import { codeEvaluation, expr, handler, scopeOf, stmts, transitionsEvaluation } from './fixtures.js';

// `this` builds contexts, agents and last_response (and their aliases) on first use, through accessors defined
// on every evaluation's `this`: a job defines only those of the scope fields its code (or script.js) can name.
const SCRIPT = "export function note() { this.workflow_contexts.get('c').addMessage({ role: 'user', content: 'n' }); }";
const reachOf = (evaluation: Evaluation, script: string | null = null): Program['reach'][] => {
  const prepared = prepareEvaluation(evaluation, script, DEFAULT_LIMITS);
  if (!prepared.ok) throw new Error(prepared.error);
  return prepared.job.parts.map((p) => (JSON.parse(p.program) as Program).reach);
};

describe('which built-on-use names a job defines on this', () => {
  it('none for code that names none of them; the fields it names; all for code that reaches this reflectively', () => {
    expect(reachOf(codeEvaluation(expr("last_agent_response !== 'done'")))).toEqual([[]]);
    expect(reachOf(codeEvaluation(expr("this.contexts.get('c').messages.length")))).toEqual([['contexts']]);
    expect(reachOf(codeEvaluation(expr("getAgent('a').response + this.last_response")))).toEqual([['agents', 'last_response']]);
    expect(reachOf(codeEvaluation(expr('Object.keys(this).length')))).toEqual([undefined]);
    expect(reachOf(codeEvaluation(expr("evaluateExpression('1')")))).toEqual([undefined]);
  });

  it('every part of a job gets what any of its code names (a condition beside a handler that writes a context)', () => {
    const evaluation: Evaluation = {
      ...transitionsEvaluation([{ condition: expr('true'), before: null }]),
      transitions: [{ condition: expr('common_data.go'), before: null, target: 'next' }],
      targets: { next: { purpose: 'enter', code: handler('note') } },
    };
    expect(reachOf(evaluation, SCRIPT)).toEqual([['contexts'], ['contexts']]);
  });
});

describe('code finds on this what it found when every name was defined', () => {
  const sandbox = createSandboxEvaluator({ scriptFor: () => SCRIPT });
  afterAll(() => sandbox.close());
  const scope = scopeOf({
    contexts: { c: [{ role: 'user', content: 'hi' }] },
    context_limits: { c: 1000 },
    agents: { a: { response: 'yes', toolCalls: [] } },
    roster: { a: { role: 'assistant', context: 'c' } },
    last_agent_response: 'yes',
  });
  const value = async (source: string): Promise<unknown> => {
    const result: EvaluationResult = await sandbox.evaluate(codeEvaluation(stmts(source), scope, 'decide'));
    if (!result.ok) throw new Error(result.error);
    return result.value;
  };

  it.each([
    ['reflection lists them all', 'return Object.keys(this).filter((k) => /contexts|agents/.test(k))', ['contexts', 'agents', 'workflow_contexts']],
    ['free names and aliases', "return [agents.get('a').response, getAgent('a').response, getContext('c').messages.length, context.getContext('c').messages.length]", ['yes', 'yes', 1, 1]],
    ["an agent's context (agents and contexts both named)", "return this.agents.get('a').getContext().messages[0].content", 'hi'],
    ['the last answer as the API gave it', 'return String(this.last_response)', 'yes'],
    ['evaluateExpression', 'return evaluateExpression(\'this.agents.get("a").response\')', 'yes'],
  ])('%s', async (_name, source, expected) => {
    expect(await value(source)).toEqual(expected);
  });

  it('a handler that writes a context after a condition that names none: the change comes back', async () => {
    const result = await sandbox.evaluate({
      ...transitionsEvaluation([{ condition: expr('true'), before: null }], scope),
      transitions: [{ condition: expr('last_agent_response === "yes"'), before: null, target: 'next' }],
      targets: { next: { purpose: 'enter', code: handler('note') } },
    });
    expect(result).toMatchObject({
      ok: true,
      value: 0,
      next: {
        ok: true,
        appended: { c: [{ role: 'user', content: 'n' }] },
      },
    });
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { scopeReadsOf } from '../../../src/workflow/sandbox/scope-reads.js';
import { createSandboxEvaluator, SandboxPool } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, expr, scopeOf, stmts } from './fixtures.js';

const reads = (source: string) => {
  const r = scopeReadsOf(source);
  return r === 'all' ? 'all' : [...r].sort();
};

describe('which parts of the scope code can read (a static scan)', () => {
  it.each([
    ['common_data.task', []],
    ['this.common_data.x = this.last_agent_response', ['last_agent_response']],
    ['function.review_work.arguments.ok === true', ['last_tool_calls']],
    ["this.getContext('main').addMessage({ role: 'user', content: 'x' })", ['context_limits', 'contexts']],
    ["this.workflow_contexts.get('main').getMessages()", ['context_limits', 'contexts']],
    ["this.getAgent('coder').getLastResponse()", ['agents', 'roster']],
    ["getToolCalls('coder').length", ['agents', 'last_tool_calls', 'roster']],
    ['this.last_response.choices[0].message.content', ['last_agent_response', 'last_response']],
    ['() => { this.common_data.t = this.sub_workflow_result; }', ['sub_workflow_result']],
    ['input + this.last_error.message', ['input', 'last_error', 'workflow_input']],
    ['last_agent_response.includes("done")', ['last_agent_response']],
    // A callback's parameter where it is declared is no use of it (it could be `this` only in a handler).
    ["[1, 2].find((c) => c.name === 'a')", []],
    ["this.last_response?.choices?.[0]?.message?.tool_calls.find(call => call.function?.name === 'decide')", ['last_agent_response', 'last_response', 'last_tool_calls']],
    ['(self) => self.common_data.n', []],
  ])('%s reads %j', (source, expected) => {
    expect(reads(source)).toEqual(expected);
  });

  it.each([
    'JSON.stringify(this)',
    'Object.keys(this).length',
    "this['con' + 'texts']",
    'const { contexts } = this; contexts',
    '(ctx) => Object.keys(ctx)',
    'function (self) { return helper(self); }',
    'arguments[2]',
    "eval('contexts')",
    "Function('return contexts')()",
    "(() => 0).constructor('return contexts')()",
    'globalThis.agents',
    'this.evaluateExpression(x)',
    'this.\\u0063ontexts',
    'with (this) { contexts }',
  ])('%s reaches the scope reflectively: everything is sent', (source) => {
    expect(reads(source)).toBe('all');
  });
});

describe('code sees the same with the scope cut to what it reads', () => {
  const pool = new SandboxPool({ size: 1 });
  const sandbox = createSandboxEvaluator({ pool });
  afterAll(async () => {
    await sandbox.close();
    await pool.close();
  });
  const scope = scopeOf({
    common_data: { task: 't' },
    input: 'in',
    contexts: { main: [{ role: 'user', content: 'hello' }] },
    agents: { coder: { response: 'code', toolCalls: [{ name: 'write', arguments: { path: 'a' } }] } },
    last_agent_response: 'answer',
    last_tool_calls: [{ name: 'review_work', arguments: { ok: true } }],
    sub_workflow_result: { done: 1 },
  });
  it.each([
    '[common_data.task, this.last_agent_response, function.review_work.arguments.ok]',
    "[this.getContext('main').messages.length, this.getAgent('coder').getLastResponse(), input]",
    '[typeof this.contexts, typeof this.agents, this.sub_workflow_result]',
    "[getToolCalls('coder').length, last_tool_calls.length]",
    "[last_tool_calls.filter((c) => c.name === 'review_work').length, [1, 2].map((n) => n * 2), ((self) => self.common_data.task)(this)]",
  ])('%s', async (source) => {
    // `void globalThis` makes the scan send everything: the answer must not change.
    const cut = await sandbox.evaluate(codeEvaluation(expr(source), scope, 'input'));
    const whole = await sandbox.evaluate(codeEvaluation(stmts(`void globalThis; return ${source};`), scope, 'input'));
    expect(cut.ok).toBe(true);
    expect(cut).toEqual(whole);
  });
});

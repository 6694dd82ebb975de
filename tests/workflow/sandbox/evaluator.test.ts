import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, errorOf, expr, handler, scopeOf, SEED_001_SCRIPT, stmts, template, transitionsEvaluation } from './fixtures.js';

const sandbox = createSandboxEvaluator({
  scriptFor: (workflow) => (workflow === 'advanced_workflow' ? SEED_001_SCRIPT : workflow === 'broken' ? 'export function a() {' : null),
});
afterAll(() => sandbox.close());

const review = (args: Record<string, unknown> | null) =>
  scopeOf({
    common_data: { task_to_do: 'a parser', max_iterations: 10, current_task: 'Perform following task: a parser' },
    agents: args ? { reviewer: { response: 'Looks good.', toolCalls: [{ name: 'review_work', arguments: args }] } } : {},
    last_agent_response: args ? 'Looks good.' : null,
    last_tool_calls: args ? [{ name: 'review_work', arguments: args }] : [],
  });

// Seed 000's coder_reviewer, verbatim.
const START =
  "() => { this.common_data.current_task = 'Perform following task: ' + this.common_data.task_to_do; this.common_data.review_instruction = 'review coder\\'s work, provide continue_message or work_summary'; }";
const REVIEW_TRANSITIONS = [
  { condition: expr('function.review_work.arguments.improvement_needed === true'), before: stmts('() => { this.common_data.current_task = function.review_work.arguments.continue_message; }') },
  { condition: expr('function.review_work.arguments.improvement_needed === false'), before: stmts('() => { this.common_data.work_summary = function.review_work.arguments.work_summary; }') },
];

describe('seed 000: coder_reviewer', () => {
  it('the start script (an arrow-function string) runs with this bound and changes common_data', async () => {
    const result = await sandbox.evaluate(codeEvaluation(stmts(START), scopeOf({ common_data: { task_to_do: 'a parser', max_iterations: 10 } })));
    expect(result).toEqual({
      ok: true,
      common_data: {
        task_to_do: 'a parser',
        max_iterations: 10,
        current_task: 'Perform following task: a parser',
        review_instruction: "review coder's work, provide continue_message or work_summary",
      },
    });
  });

  it("the code state's transitions: this.getToolCalls('coder') before and after the coder used a tool", async () => {
    const transitions = [
      { condition: expr("this.getToolCalls('coder').length > 0"), before: null },
      { condition: expr('true'), before: null },
    ];
    expect(await sandbox.evaluate(transitionsEvaluation(transitions))).toMatchObject({ ok: true, value: 1 });
    const used = scopeOf({ agents: { coder: { response: '', toolCalls: [{ name: 'write_file', arguments: { path: 'a.ts' } }] } } });
    expect(await sandbox.evaluate(transitionsEvaluation(transitions, used))).toMatchObject({ ok: true, value: 0 });
  });

  it('the review asks for more: the first transition holds and its before reads the shorthand', async () => {
    const result = await sandbox.evaluate(transitionsEvaluation(REVIEW_TRANSITIONS, review({ improvement_needed: true, continue_message: 'handle errors' })));
    expect(result).toMatchObject({ ok: true, value: 0, common_data: { current_task: 'handle errors' } });
  });

  it('the review approves: the second transition holds and its before keeps the summary', async () => {
    const result = await sandbox.evaluate(transitionsEvaluation(REVIEW_TRANSITIONS, review({ improvement_needed: false, work_summary: 'a parser with errors handled' })));
    expect(result).toMatchObject({ ok: true, value: 1, common_data: { work_summary: 'a parser with errors handled', current_task: 'Perform following task: a parser' } });
  });

  it('the reviewer never called review_work: no condition holds (-1), nothing throws', async () => {
    expect(await sandbox.evaluate(transitionsEvaluation(REVIEW_TRANSITIONS, review(null)))).toMatchObject({ ok: true, value: -1 });
  });

  it('the last call of the tool counts, and arguments sent as a JSON string are read', async () => {
    const scope = scopeOf({
      last_tool_calls: [
        { name: 'review_work', arguments: { improvement_needed: true } },
        { name: 'review_work', arguments: '{"improvement_needed": false}' },
      ],
    });
    expect(
      await sandbox.evaluate(
        transitionsEvaluation(
          REVIEW_TRANSITIONS.map((t) => ({ ...t, before: null })),
          scope,
        ),
      ),
    ).toMatchObject({ ok: true, value: 1 });
  });

  it('the seed long form reads the same call: last_parsing_tool_calls.find(call => call.function.name === ...)', async () => {
    const long = "this.last_parsing_tool_calls.find(call => call.function.name === 'review_work')?.function.arguments.improvement_needed === true";
    expect(await sandbox.evaluate(transitionsEvaluation([{ condition: expr(long), before: null }], review({ improvement_needed: true })))).toMatchObject({ ok: true, value: 0 });
  });

  it("stop's input expression gives the summary", async () => {
    expect(await sandbox.evaluate(codeEvaluation(expr('common_data.work_summary'), scopeOf({ common_data: { work_summary: 'done' } }), 'input'))).toMatchObject({ ok: true, value: 'done' });
  });
});

describe('seed 000: hierarchical_development', () => {
  const scope = scopeOf({
    common_data: { business_requirements: 'a shop', business_analysis: 'users buy things', technical_spec: 'a monolith', max_iterations: 3 },
    agents: { product_manager: { response: 'PM says: ship it', toolCalls: [] }, architect: { response: 'spec v1', toolCalls: [] } },
    contexts: {
      pm_context: [
        { role: 'user', content: 'analyse' },
        { role: 'assistant', content: 'PM says: ship it' },
      ],
    },
  });

  it('input expressions concatenate common_data without this.', async () => {
    const source =
      "'Create detailed technical specification for: ' + common_data.business_analysis + '. Provide: system architecture, design patterns, technology stack, implementation approach, technical risks.'";
    expect(await sandbox.evaluate(codeEvaluation(expr(source), scope, 'input'))).toMatchObject({
      ok: true,
      value: 'Create detailed technical specification for: users buy things. Provide: system architecture, design patterns, technology stack, implementation approach, technical risks.',
    });
  });

  it("a before reads this.getAgent('product_manager').getLastResponse()", async () => {
    const before = stmts("() => { this.common_data.business_analysis = this.getAgent('product_manager').getLastResponse(); }");
    expect(await sandbox.evaluate(transitionsEvaluation([{ condition: expr('true'), before }], scope))).toMatchObject({ ok: true, value: 0, common_data: { business_analysis: 'PM says: ship it' } });
  });

  it('sub_workflow_input fields evaluate to an object, and sub_workflow_result is readable', async () => {
    const fields = await sandbox.evaluate({
      workflow: 'hierarchical_development',
      state: 'implementation_with_review',
      purpose: 'sub_input',
      fields: { task_to_do: expr('common_data.technical_spec') },
      scope,
    });
    expect(fields).toMatchObject({ ok: true, value: { task_to_do: 'a monolith' } });
    const after = await sandbox.evaluate(
      transitionsEvaluation([{ condition: expr('true'), before: stmts('() => { this.common_data.implementation_result = this.sub_workflow_result; }') }], {
        ...scope,
        sub_workflow_result: 'built it',
      }),
    );
    expect(after).toMatchObject({ ok: true, common_data: { implementation_result: 'built it' } });
  });

  it('the documented expression forms: variables.*, agents.*.getLastResponse(), contexts.*.messages', async () => {
    const source =
      "[variables.max_iterations, agents.product_manager.getLastResponse(), contexts.pm_context.messages[contexts.pm_context.messages.length - 1].content, this.getContext('pm_context').name]";
    expect(await sandbox.evaluate(codeEvaluation(expr(source), scope, 'input'))).toMatchObject({ ok: true, value: [3, 'PM says: ship it', 'PM says: ship it', 'pm_context'] });
  });

  it('an agent that has not answered reads as no answer and no tool calls', async () => {
    expect(await sandbox.evaluate(codeEvaluation(expr("[this.getAgent('qa').getLastResponse(), this.getToolCalls('qa').length, this.getAgent('qa').getRole()]"), scope, 'input'))).toMatchObject({
      ok: true,
      value: [null, 0, 'qa'],
    });
  });
});

describe('templates', () => {
  const scope = scopeOf({ common_data: { user_request: 'a CLI', task: { title: 'parse' }, n: 3 }, input: { user_request: 'ignored', extra: 'from input' }, last_agent_response: 'hi' });
  it('fill {input.x} (common_data by name first, then the input), {common_data.x} and {x}', async () => {
    const result = await sandbox.evaluate(
      codeEvaluation(template('Please help with: {input.user_request} / {input.extra} / {common_data.task.title} / {n} / {task} / {last_agent_response}'), scope, 'input'),
    );
    expect(result).toEqual({ ok: true, value: 'Please help with: a CLI / from input / parse / 3 / {"title":"parse"} / hi', common_data: scope.common_data });
  });

  it('a missing placeholder renders as empty and is told in the logs', async () => {
    const result = await sandbox.evaluate(codeEvaluation(template('Do {missing} and {input.nope}.'), scope, 'input'));
    expect(result).toMatchObject({ ok: true, value: 'Do  and .', logs: ['template: {missing} is not set; rendered as empty', 'template: {input.nope} is not set; rendered as empty'] });
  });

  it('placeholders never reach prototypes', async () => {
    expect(await sandbox.evaluate(codeEvaluation(template('[{constructor}][{common_data.toString}][{input.__proto__}]'), scope, 'input'))).toMatchObject({ ok: true, value: '[][][]' });
  });
});

describe('script.js handlers (seed 001)', () => {
  const scope = scopeOf({ common_data: { task_description: 'estimate a feature' }, contexts: { analysis_context: [] }, last_agent_response: 'A moderate change.\nWe need a requirement list.' });
  const run = (name: string, over = scope) => sandbox.evaluate(codeEvaluation(handler(name), over, 'decide', 'advanced_workflow'));

  it('an exported handler runs with this bound and its console output comes back as logs', async () => {
    expect(await run('initializeWorkflow')).toEqual({ ok: true, common_data: { task_description: 'estimate a feature', iteration_count: 0 }, logs: ['Starting workflow: estimate a feature'] });
  });

  it('helpers are callable as functions and as this.helper(); the value is the return', async () => {
    const processed = await run('processAnalysis');
    expect(processed).toMatchObject({
      ok: true,
      common_data: { analysis_result: { complexity: 'medium', requirements: ['We need a requirement list.'] } },
      logs: ['Analysis completed: {"complexity":"medium","requirements":["We need a requirement list."]}'],
    });
    if (!processed.ok) return;
    expect(await run('decideNextStep', { ...scope, common_data: processed.common_data })).toMatchObject({ ok: true, value: 'implement' });
  });

  it('addMessage on a context it never read comes back as the messages added to it', async () => {
    const result = await run('prepareAnalysis');
    expect(result).toMatchObject({
      ok: true,
      common_data: { analysis_phase: 'requirements' },
      appended: { analysis_context: [{ role: 'system', content: 'Analysis phase: requirements' }] },
    });
    expect(result).not.toHaveProperty('contexts');
  });

  it('an error handler reads this.last_error and names what comes next', async () => {
    const failing = { ...scope, common_data: { error_count: 3 }, last_error: { state: 'implement', message: 'timed out' } };
    expect(await sandbox.evaluate(codeEvaluation(handler('handleWorkflowError'), failing, 'error', 'advanced_workflow'))).toEqual({
      ok: true,
      value: 'stop',
      common_data: { error_count: 4 },
      logs: ['implement failed: timed out'],
    });
  });

  it('an unknown handler is named, with the ones that exist', async () => {
    expect(errorOf(await run('nope'))).toBe(
      'handler nope: script.js of workflow advanced_workflow has no function "nope" (it has: initializeWorkflow, prepareAnalysis, processAnalysis, decideNextStep, handleWorkflowError, extractComplexity, extractRequirements)',
    );
  });

  it('a workflow without script.js, or with a broken one, says so', async () => {
    expect(errorOf(await sandbox.evaluate(codeEvaluation(handler('a'), scopeOf(), 'decide', 'plain')))).toBe('handler a: workflow plain has no script.js to find it in');
    expect(errorOf(await sandbox.evaluate(codeEvaluation(handler('a'), scopeOf(), 'decide', 'broken')))).toMatch(/^script\.js of workflow broken: syntax error: /);
  });
});

describe('values, fields and transitions', () => {
  it('statements return their value (or nothing); expressions written as arrows are called', async () => {
    expect(await sandbox.evaluate(codeEvaluation(stmts('this.common_data.a = 1; return 2;')))).toEqual({ ok: true, value: 2, common_data: { a: 1 } });
    expect(await sandbox.evaluate(codeEvaluation(stmts('function () { this.common_data.b = 2; }')))).toEqual({ ok: true, common_data: { b: 2 } });
    expect(await sandbox.evaluate(codeEvaluation(expr('() => this.common_data.x * 2'), scopeOf({ common_data: { x: 21 } }), 'input'))).toMatchObject({ value: 42 });
    expect(await sandbox.evaluate(codeEvaluation(expr('ctx => ctx.common_data.x + 1'), scopeOf({ common_data: { x: 1 } }), 'input'))).toMatchObject({ value: 2 });
  });

  it('an expression that is really statements still runs', async () => {
    expect(await sandbox.evaluate(codeEvaluation(expr('this.common_data.a = 1; this.common_data.b = 2;')))).toEqual({ ok: true, common_data: { a: 1, b: 2 } });
  });

  it('fields give an object of each value, in order, sharing common_data', async () => {
    const result = await sandbox.evaluate({
      workflow: 'wf',
      state: 's',
      purpose: 'branch_input',
      fields: { a: stmts('this.common_data.n = 1; return "first";'), b: expr('common_data.n + 1'), c: template('{n}') },
      scope: scopeOf(),
    });
    expect(result).toEqual({ ok: true, value: { a: 'first', b: 2, c: '1' }, common_data: { n: 1 } });
  });

  it('a null condition always holds; the first that holds wins and only its before runs', async () => {
    const result = await sandbox.evaluate(
      transitionsEvaluation([
        { condition: expr('false'), before: stmts('this.common_data.wrong = true') },
        { condition: null, before: stmts('this.common_data.taken = 1') },
        { condition: expr('true'), before: stmts('this.common_data.wrong = true') },
      ]),
    );
    expect(result).toEqual({ ok: true, value: 1, common_data: { taken: 1 } });
  });

  it('every condition is compiled first: a broken later one fails even when an earlier one holds', async () => {
    expect(
      errorOf(
        await sandbox.evaluate(
          transitionsEvaluation([
            { condition: expr('true'), before: null },
            { condition: expr('common_data.x ==='), before: null },
          ]),
        ),
      ),
    ).toMatch(/^transition 2 condition `common_data.x ===`: syntax error: /);
  });

  it('console lines are capped', async () => {
    const small = createSandboxEvaluator({ maxLogLines: 3 });
    try {
      const result = await small.evaluate(codeEvaluation(stmts("for (let i = 0; i < 1000; i++) console.warn('line', i, { i });")));
      expect(result).toMatchObject({ ok: true, logs: ['warn: line 0 {"i":0}', 'warn: line 1 {"i":1}', 'warn: line 2 {"i":2}', '(997 more console lines not kept)'] });
    } finally {
      await small.close();
    }
  });
});

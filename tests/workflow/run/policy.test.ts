import { describe, expect, it } from 'vitest';
import type { Effect } from '../../../src/engine/effects.js';
import type { WorkflowPlan } from '../../../src/workflow/run/plan.js';
import { workflowDriver } from '../../helpers/workflow-driver.js';
import { CODER_REVIEWER_PARTS, expr, state, stmts, workflowPlan } from '../../helpers/workflow-plan.js';

/** Seed 000's coder_reviewer, as the loader normalises it. */
const coderReviewer: WorkflowPlan = workflowPlan({
  name: 'coder_reviewer',
  ...CODER_REVIEWER_PARTS,
  states: [
    state({
      name: 'start',
      enter: stmts("this.common_data.current_task = 'Perform following task: ' + this.common_data.task_to_do;"),
      transitions: [{ target: 'code', condition: expr('true'), before: null }],
    }),
    state({ name: 'code', agent: 'coder', input: expr('common_data.current_task'), transitions: [{ target: 'review', condition: expr('true'), before: null }] }),
    state({
      name: 'review',
      agent: 'reviewer',
      input: expr("'review'"),
      transitions: [
        {
          target: 'code',
          condition: expr('function.review_work.arguments.improvement_needed === true'),
          before: stmts('this.common_data.current_task = function.review_work.arguments.continue_message;'),
        },
        {
          target: 'stop',
          condition: expr('function.review_work.arguments.improvement_needed === false'),
          before: stmts('this.common_data.work_summary = function.review_work.arguments.work_summary;'),
        },
      ],
    }),
    state({ name: 'stop', input: expr('common_data.work_summary'), final: true }),
  ],
  start: 'start',
});

describe('the workflow policy on the core (pure step)', () => {
  it('runs coder_reviewer: code, a review that asks for more, code again, an approving review, stop with the output', () => {
    const w = workflowDriver(coderReviewer);
    w.send({ type: 'start', brief: 'a parser' });
    expect(w.evaluation()!.evaluation).toMatchObject({ purpose: 'enter', state: 'start', scope: { common_data: { task_to_do: 'a parser', max_iterations: 10 } } });
    w.send({
      type: 'evaluated',
      id: w.evaluation()!.id,
      result: { ok: true, value: undefined, common_data: { task_to_do: 'a parser', max_iterations: 10, current_task: 'Perform following task: a parser' } },
    });
    // start's transition (`true`) and code's input (`common_data.current_task`) need no code: decided in the step.
    expect(w.state().configuration).toEqual(['code']);
    const first = w.call()!.call;
    expect(first).toMatchObject({ persona: 'coder', path: 'code', inbox: { kind: 'workflow', text: 'Perform following task: a parser' } });
    expect(w.state().workflow!.evalSeq).toBe(3);
    // code -> review (`true`), review's input (`'review'`), the reviewer's turn: no sandbox either.
    w.send({ type: 'agent_replied', turnId: first.turnId, text: 'v1 of the parser', toolCalls: [] });
    const review = w.call()!.call;
    expect(review.persona).toBe('reviewer');
    w.send({ type: 'agent_replied', turnId: review.turnId, text: 'Handle errors.', toolCalls: [{ name: 'review_work', arguments: { improvement_needed: true, continue_message: 'handle errors' } }] });
    const transitions = w.evaluation()!.evaluation;
    expect(transitions.purpose).toBe('transitions');
    expect(transitions.scope.agents.reviewer).toMatchObject({ toolCalls: [{ name: 'review_work', arguments: { improvement_needed: true } }] });
    // The shared context, as the coder sees it: its task, its words, then the reviewer's words as the user's.
    expect(transitions.scope.contexts.code_history).toEqual(
      [
        { role: 'user', content: 'Perform following task: a parser' },
        { role: 'assistant', content: 'v1 of the parser' },
        { role: 'user', content: 'Handle errors.' },
      ].map((m) => expect.objectContaining(m)),
    );
    w.send({ type: 'evaluated', id: transitions && w.evaluation()!.id, result: { ok: true, value: 0, common_data: { ...w.state().workflow!.frames[0]!.common_data, current_task: 'handle errors' } } });
    expect(w.state().configuration).toEqual(['code']);
    w.send({ type: 'agent_replied', turnId: w.call()!.call.turnId, text: 'v2', toolCalls: [] });
    w.send({
      type: 'agent_replied',
      turnId: w.call()!.call.turnId,
      text: 'Good.',
      toolCalls: [{ name: 'review_work', arguments: { improvement_needed: false, work_summary: 'a parser with errors handled' } }],
    });
    w.send({ type: 'evaluated', id: w.evaluation()!.id, result: { ok: true, value: 1, common_data: { ...w.state().workflow!.frames[0]!.common_data, work_summary: 'a parser with errors handled' } } });
    expect(w.state().status).toBe('ended');
    expect(w.events.at(-1)).toEqual({ type: 'session_ended', reason: 'workflow coder_reviewer complete', output: 'a parser with errors handled' });
    const path = w.events.filter((e) => e.type === 'transition').map((e) => (e as { to: string }).to);
    expect(path).toEqual(['start', 'code', 'review', 'code', 'review', 'stop']);
  });

  it('a failed evaluation goes to the error handler when there is one, else pauses with the workflow, state and cause', () => {
    const w = workflowDriver(coderReviewer);
    w.send({ type: 'start', brief: 'x' });
    w.send({ type: 'evaluated', id: w.evaluation()!.id, result: { ok: false, error: 'ReferenceError: nope is not defined' } });
    expect(w.state().status).toBe('awaiting_user');
    expect(w.state().awaiting).toMatchObject({ code: 'failure', reason: 'coder_reviewer: state start failed: enter: ReferenceError: nope is not defined; !continue tries it again' });
    const withHandler = workflowDriver({ ...coderReviewer, errorHandler: 'stop' });
    withHandler.send({ type: 'start', brief: 'x' });
    withHandler.send({ type: 'evaluated', id: withHandler.evaluation()!.id, result: { ok: false, error: 'boom' } });
    expect(withHandler.state().configuration).toEqual(['stop']);
    expect(withHandler.state().workflow!.frames[0]!.common_data.error).toEqual({ state: 'start', message: 'enter: boom' });
  });

  it('a stale evaluation (an id no longer waited for) changes nothing', () => {
    const w = workflowDriver(coderReviewer);
    w.send({ type: 'start', brief: 'x' });
    const before = w.state();
    expect(w.send({ type: 'evaluated', id: 'e99', result: { ok: true, value: 1, common_data: {} } })).toEqual([]);
    expect(w.state().workflow).toEqual(before.workflow);
  });

  it('a reviewer that does not call the parsing tool its conditions read is asked once more (the tool forced), then the state fails', () => {
    const w = workflowDriver(coderReviewer);
    w.send({ type: 'start', brief: 'a parser' });
    const cd = () => w.state().workflow!.frames[0]!.common_data;
    w.send({ type: 'evaluated', id: w.evaluation()!.id, result: { ok: true, value: undefined, common_data: cd() } });
    w.send({ type: 'agent_replied', turnId: w.call()!.call.turnId, text: 'v1', toolCalls: [] });
    const again = w.send({ type: 'agent_replied', turnId: w.call()!.call.turnId, text: 'looks fine', toolCalls: [] });
    const repair = again.find((fx) => fx.type === 'call_agent') as Extract<Effect, { type: 'call_agent' }>;
    expect(repair.call).toMatchObject({ persona: 'reviewer', attempt: 2, repair: 'review_work', inbox: { text: expect.stringContaining('You did not call review_work') } });
    expect(w.events.some((e) => e.type === 'note' && /did not call review_work, which the conditions of review read; asking once more/.test((e as { text: string }).text))).toBe(true);
    w.send({ type: 'agent_replied', turnId: repair.call.turnId, text: 'still prose', toolCalls: [] });
    expect(w.state().awaiting).toMatchObject({ code: 'failure', reason: expect.stringContaining('Reviewer did not call review_work, which the conditions of review read (asked twice)') });
  });

  it('a sub-workflow runs as a compound state with its own contexts, and its output comes back as sub_workflow_result', () => {
    const parent: WorkflowPlan = {
      ...coderReviewer,
      name: 'parent',
      input: { name: 'req' },
      output: { name: 'result' },
      contexts: [],
      agents: [],
      states: [
        state({
          name: 'start',
          subWorkflow: { name: 'coder_reviewer', input: { task_to_do: expr('common_data.req') } },
          transitions: [{ target: 'stop', condition: expr('true'), before: stmts('this.common_data.result = this.sub_workflow_result;') }],
        }),
        state({ name: 'stop', final: true }),
      ],
      subWorkflows: { coder_reviewer: coderReviewer },
    };
    const w = workflowDriver(parent);
    // The sub-workflow's input (`common_data.req`) needs no code: the child starts in the same step.
    w.send({ type: 'start', brief: 'build it' });
    expect(w.state().configuration).toEqual(['start.start']);
    expect(w.state().workflow!.frames).toHaveLength(2);
    expect(w.state().workflow!.frames[1]!.common_data).toMatchObject({ task_to_do: 'build it', max_iterations: 10 });
    // Run the child straight to its stop with an approving review.
    const cd = () => w.state().workflow!.frames.at(-1)!.common_data;
    w.send({ type: 'evaluated', id: w.evaluation()!.id, result: { ok: true, value: undefined, common_data: cd() } });
    w.send({ type: 'agent_replied', turnId: w.call()!.call.turnId, text: 'done', toolCalls: [] });
    w.send({ type: 'agent_replied', turnId: w.call()!.call.turnId, text: 'ok', toolCalls: [{ name: 'review_work', arguments: { improvement_needed: false, work_summary: 'built' } }] });
    w.send({ type: 'evaluated', id: w.evaluation()!.id, result: { ok: true, value: 1, common_data: { ...cd(), work_summary: 'built' } } });
    // Back in the parent: the child's output is sub_workflow_result, then the parent's transitions run.
    expect(w.state().workflow!.frames).toHaveLength(1);
    expect(w.state().configuration).toEqual(['start.__done']);
    const last = w.evaluation()!.evaluation;
    expect(last.purpose).toBe('transitions');
    expect(last.scope.sub_workflow_result).toBe('built');
    w.send({ type: 'evaluated', id: w.evaluation()!.id, result: { ok: true, value: 0, common_data: { req: 'build it', result: 'built' } } });
    expect(w.events.at(-1)).toMatchObject({ type: 'session_ended', output: 'built' });
    expect(
      w.events
        .filter((e) => e.type === 'transition' || e.type === 'major_entered' || e.type === 'major_exited')
        .map((e) => (e.type === 'transition' ? `${e.from} -> ${e.to}` : `${e.type} ${(e as { major: string }).major}`)),
    ).toEqual([
      ' -> start',
      'major_entered start',
      'start.start -> start.code',
      'start.code -> start.review',
      'start.review -> start.stop',
      'start.stop -> start.__done',
      'start.__done -> stop',
      'major_exited start',
    ]);
  });

  it('request_users_input pauses for the user; the answer goes back to the same agent', () => {
    const asking: WorkflowPlan = {
      ...coderReviewer,
      agents: coderReviewer.agents.map((a) => (a.id === 'coder' ? { ...a, requestUserInput: true } : a)),
    };
    const w = workflowDriver(asking);
    w.send({ type: 'start', brief: 'x' });
    w.send({ type: 'evaluated', id: w.evaluation()!.id, result: { ok: true, value: undefined, common_data: { task_to_do: 'x', current_task: 'task' } } });
    w.send({ type: 'agent_replied', turnId: w.call()!.call.turnId, text: '', toolCalls: [{ id: 'c1', name: 'request_users_input', arguments: { question: 'Which language?' } }] });
    expect(w.state().awaiting).toMatchObject({ code: 'question', reason: 'Coder asks you: Which language?' });
    const next = w.send({ type: 'user_message', text: 'Zig' });
    const call = next.find((fx) => fx.type === 'call_agent') as Extract<Effect, { type: 'call_agent' }>;
    expect(call.call).toMatchObject({ persona: 'coder', inbox: { kind: 'workflow_answer', text: 'Zig', toolCallId: 'c1', question: 'Which language?' } });
  });
});

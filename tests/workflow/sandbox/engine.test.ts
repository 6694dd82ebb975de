import { afterAll, describe, expect, it } from 'vitest';
import type { Effect } from '../../../src/engine/effects.js';
import type { EngineEvent } from '../../../src/engine/event-map.js';
import type { EngineInput } from '../../../src/engine/input-events.js';
import type { SessionState } from '../../../src/engine/session.js';
import { initialState, step } from '../../../src/engine/step.js';
import { compileWorkflow } from '../../../src/workflow/run/compile.js';
import type { WorkflowPlan } from '../../../src/workflow/run/plan.js';
import type { ToolCallRecord } from '../../../src/engine/agent-reply.js';
import { createSandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { expr, stmts } from './fixtures.js';
import { CODER_REVIEWER_PARTS, state, workflowPlan } from '../../helpers/workflow-plan.js';

/** Seed 000's coder_reviewer with its code verbatim: arrow-function strings and the function.X shorthand. */
const coderReviewer: WorkflowPlan = workflowPlan({
  name: 'coder_reviewer',
  ...CODER_REVIEWER_PARTS,
  states: [
    state({
      name: 'start',
      enter: stmts(
        "() => { this.common_data.current_task = 'Perform following task: ' + this.common_data.task_to_do; this.common_data.review_instruction = 'review coder\\'s work, provide continue_message or work_summary'; }",
      ),
      transitions: [{ target: 'code', condition: expr('true'), before: null }],
    }),
    state({
      name: 'code',
      agent: 'coder',
      input: expr('common_data.current_task'),
      transitions: [
        { target: 'code', condition: expr("this.getToolCalls('coder').length > 0"), before: null },
        { target: 'review', condition: expr('true'), before: null },
      ],
    }),
    state({
      name: 'review',
      agent: 'reviewer',
      input: expr('common_data.review_instruction'),
      transitions: [
        {
          target: 'code',
          condition: expr('function.review_work.arguments.improvement_needed === true'),
          before: stmts('() => { this.common_data.current_task = function.review_work.arguments.continue_message; }'),
        },
        {
          target: 'stop',
          condition: expr('function.review_work.arguments.improvement_needed === false'),
          before: stmts('() => { this.common_data.work_summary = function.review_work.arguments.work_summary; }'),
        },
      ],
    }),
    state({ name: 'stop', input: expr('common_data.work_summary'), final: true }),
  ],
  start: 'start',
  source: 'seed 000',
});

const sandbox = createSandboxEvaluator();
afterAll(() => sandbox.close());

describe('the engine with the real sandbox', () => {
  it('runs seed 000 coder_reviewer end to end: every evaluate effect answered by QuickJS', async () => {
    const def = compileWorkflow(coderReviewer);
    let session: SessionState = initialState(def, { id: 'w' });
    const events: EngineEvent[] = [];
    const inputs: { persona: string; text: string }[] = [];
    const replies: Record<string, { text: string; toolCalls: ToolCallRecord[] }[]> = {
      coder: [
        { text: 'v1 of the parser', toolCalls: [] },
        { text: 'v2 with errors handled', toolCalls: [] },
      ],
      reviewer: [
        { text: 'Handle errors.', toolCalls: [{ name: 'review_work', arguments: { improvement_needed: true, continue_message: 'handle errors' } }] },
        { text: 'Good.', toolCalls: [{ name: 'review_work', arguments: { improvement_needed: false, work_summary: 'a parser with errors handled' } }] },
      ],
    };
    const pending: EngineInput[] = [{ type: 'start', brief: 'a parser' }];
    for (let guard = 0; pending.length > 0 && guard < 100; guard++) {
      const result = step(def, session, pending.shift()!);
      session = result.session;
      for (const effect of result.effects as Effect[]) {
        if (effect.type === 'emit') events.push(effect.event);
        if (effect.type === 'evaluate') pending.push({ type: 'evaluated', id: effect.id, result: await sandbox.evaluate(effect.evaluation) });
        if (effect.type === 'call_agent') {
          const reply = replies[effect.call.persona]!.shift()!;
          inputs.push({ persona: effect.call.persona, text: effect.call.inbox.kind === 'workflow' ? effect.call.inbox.text : '' });
          pending.push({ type: 'agent_replied', turnId: effect.call.turnId, text: reply.text, toolCalls: reply.toolCalls });
        }
      }
    }
    expect(inputs).toEqual([
      { persona: 'coder', text: 'Perform following task: a parser' },
      { persona: 'reviewer', text: "review coder's work, provide continue_message or work_summary" },
      { persona: 'coder', text: 'handle errors' },
      { persona: 'reviewer', text: "review coder's work, provide continue_message or work_summary" },
    ]);
    expect(events.filter((e) => e.type === 'transition').map((e) => (e as { to: string }).to)).toEqual(['start', 'code', 'review', 'code', 'review', 'stop']);
    expect(events.at(-1)).toEqual({ type: 'session_ended', reason: 'workflow coder_reviewer complete', output: 'a parser with errors handled' });
  });
});

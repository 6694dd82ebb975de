import { describe, expect, it } from 'vitest';
import type { Effect } from '../../../src/engine/effects.js';
import type { WorkflowPlan } from '../../../src/workflow/run/plan.js';
import { decideInHost } from '../../../src/workflow/sandbox/host-decision.js';
import { workflowDriver } from '../../helpers/workflow-driver.js';
import { expr, state, stmts, workflowPlan } from '../../helpers/workflow-plan.js';

/** ping -> pong -> ping ...: no agent, no code, only constant conditions. */
const pingPong: WorkflowPlan = workflowPlan({
  name: 'ping_pong',
  states: [
    state({ name: 'ping', transitions: [{ target: 'pong', condition: expr('true'), before: null }] }),
    state({
      name: 'pong',
      transitions: [
        { target: 'never', condition: expr('false'), before: null },
        { target: 'ping', condition: null, before: null },
      ],
    }),
    state({ name: 'never', final: true }),
  ],
  start: 'ping',
  maxStateEntries: 500,
});

describe('evaluations the engine answers in the step that asks for them', () => {
  it('a cycle of states that need no code is decided a bounded number at a time, and the loop guard still pauses it', () => {
    const w = workflowDriver(pingPong);
    w.send({ type: 'start', brief: 'x' });
    let asked = 0;
    for (let fx = w.evaluation(); fx; fx = w.evaluation()) {
      // What the sandbox evaluator does with them: it decides them in the host too.
      asked += 1;
      w.send({ type: 'evaluated', id: fx.id, result: decideInHost(fx.evaluation, fx.evaluation.scope)! });
    }
    const s = w.state();
    expect(s.status).toBe('awaiting_user');
    expect(s.awaiting?.reason).toMatch(/^ping_pong: .*500 state entries without an agent turn \(max_state_entries 500\); !continue to go on$/);
    // 500 entries; at most 64 decided in one step, so only a few went out to the runtime.
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(500 / 64 + 2);
    // Every decision took its evaluation id, as when each went to the sandbox.
    expect(s.workflow!.evalSeq).toBeGreaterThanOrEqual(500);
  });
});

describe('the sandbox ran the next evaluation too (its next): used only on the very data it started from', () => {
  const plan: WorkflowPlan = {
    ...pingPong,
    name: 'chained',
    contexts: [{ name: 'c', starting: [], maxLength: 10_000 }],
    agents: [{ id: 'writer', context: 'c', role: 'assistant', name: 'Writer', systemMessage: '', model: 'base', parsingTools: [], requestUserInput: false, tools: [], maxToolSteps: 20 }],
    states: [
      state({ name: 'work', agent: 'writer', after: stmts('this.common_data.seen = 1'), transitions: [{ target: 'done', condition: expr('common_data.seen >= 1'), before: null }] }),
      state({ name: 'done', final: true }),
    ],
    start: 'work',
  };
  function toAfter() {
    const w = workflowDriver(plan);
    w.send({ type: 'start', brief: 'x' });
    w.send({ type: 'agent_replied', turnId: w.call()!.call.turnId, text: 'draft', toolCalls: [] });
    return { ...w, after: w.evaluation()! };
  }

  it('after-code and the transitions go out as one job; its chained result is used without asking again', () => {
    const w = toAfter();
    expect(w.after.evaluation).toMatchObject({ purpose: 'after', next: { purpose: 'transitions' } });
    w.send({ type: 'evaluated', id: w.after.id, result: { ok: true, value: undefined, common_data: { input: 'x', seen: 1 }, next: { ok: true, value: 0, common_data: { input: 'x', seen: 1 } } } });
    expect(w.effects().filter((f) => f.type === 'evaluate')).toEqual([]);
    expect(w.state().status).toBe('ended');
    expect(w.state().workflow!.evalSeq).toBe(2);
  });

  it('when the first part changed a context (the engine trims it), the chained result is not used: the transitions are asked for', () => {
    const w = toAfter();
    w.send({
      type: 'evaluated',
      id: w.after.id,
      result: {
        ok: true,
        value: undefined,
        common_data: { input: 'x', seen: 1 },
        contexts: {
          c: [
            { role: 'user', content: '' },
            { role: 'assistant', content: 'draft' },
            { role: 'user', content: 'added' },
          ],
        },
        next: { ok: true, value: 0, common_data: { input: 'x', seen: 1 } },
      },
    });
    const asked = w.effects().find((f) => f.type === 'evaluate') as Extract<Effect, { type: 'evaluate' }>;
    expect(asked.evaluation.purpose).toBe('transitions');
    expect(asked.evaluation.scope.contexts.c!.map((m) => m.content)).toEqual(['', 'draft', 'added']);
  });
});

import { describe, expect, it } from 'vitest';
import type { Effect } from '../../../src/engine/effects.js';
import type { EngineEvent } from '../../../src/engine/event-map.js';
import type { EngineInput } from '../../../src/engine/input-events.js';
import type { SessionState } from '../../../src/engine/session.js';
import { initialState, step } from '../../../src/engine/step.js';
import { compileWorkflow } from '../../../src/workflow/run/compile.js';
import type { WorkflowPlan } from '../../../src/workflow/run/plan.js';
import { decideInHost } from '../../../src/workflow/sandbox/host-decision.js';
import { expr, state } from '../../helpers/workflow-plan.js';

/** ping -> pong -> ping ...: no agent, no code, only constant conditions. */
const pingPong: WorkflowPlan = {
  name: 'ping_pong',
  description: '',
  input: { name: 'input' },
  output: { name: 'output' },
  variables: {},
  contexts: [],
  agents: [],
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
  resume: null,
  errorHandler: null,
  script: null,
  subWorkflows: {},
  source: 'test',
  maxStateEntries: 500,
};

describe('evaluations the engine answers in the step that asks for them', () => {
  it('a cycle of states that need no code is decided a bounded number at a time, and the loop guard still pauses it', () => {
    const def = compileWorkflow(pingPong);
    let s: SessionState = initialState(def, { id: 'w' });
    const events: EngineEvent[] = [];
    let effects: Effect[] = [];
    const send = (input: EngineInput) => {
      const r = step(def, s, input);
      s = r.session;
      effects = r.effects;
      for (const fx of r.effects) if (fx.type === 'emit') events.push(fx.event);
    };
    send({ type: 'start', brief: 'x' });
    let asked = 0;
    for (let fx = effects.find((f) => f.type === 'evaluate'); fx && fx.type === 'evaluate'; fx = effects.find((f) => f.type === 'evaluate')) {
      // What the sandbox evaluator does with them: it decides them in the host too.
      asked += 1;
      send({ type: 'evaluated', id: fx.id, result: decideInHost(fx.evaluation, fx.evaluation.scope)! });
    }
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
  const stmts = (source: string) => ({ kind: 'statements' as const, source });
  const plan: WorkflowPlan = {
    ...pingPong,
    name: 'chained',
    contexts: [{ name: 'c', starting: [], maxLength: 10_000 }],
    agents: [{ id: 'writer', context: 'c', role: 'assistant', name: 'Writer', systemMessage: '', model: 'base', parsingTools: [], requestUserInput: false, tools: [], maxToolSteps: 20 }],
    states: [
      state({ name: 'work', agent: 'writer', after: stmts('this.common_data.seen = 1'), transitions: [{ target: 'done', condition: expr('common_data.seen === 1'), before: null }] }),
      state({ name: 'done', final: true }),
    ],
    start: 'work',
  };
  function toAfter() {
    const def = compileWorkflow(plan);
    let s: SessionState = initialState(def, { id: 'w' });
    let effects: Effect[] = [];
    const send = (input: EngineInput) => {
      const r = step(def, s, input);
      s = r.session;
      effects = r.effects;
    };
    send({ type: 'start', brief: 'x' });
    const call = effects.find((f) => f.type === 'call_agent') as Extract<Effect, { type: 'call_agent' }>;
    send({ type: 'agent_replied', turnId: call.call.turnId, text: 'draft', toolCalls: [] });
    const after = effects.find((f) => f.type === 'evaluate') as Extract<Effect, { type: 'evaluate' }>;
    return { send, after, effects: () => effects, state: () => s };
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

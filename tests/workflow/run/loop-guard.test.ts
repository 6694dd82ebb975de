import { describe, expect, it } from 'vitest';
import type { Evaluation } from '../../../src/engine/evaluation.js';
import type { EngineEvent } from '../../../src/engine/event-map.js';
import { SessionStateSchema } from '../../../src/kinds/schemas.js';
import { step } from '../../../src/engine/step.js';
import { compileWorkflow } from '../../../src/workflow/run/compile.js';
import { loopText, ROUND_DATA_BYTES } from '../../../src/workflow/run/loop-guard.js';
import { MAX_COMMON_DATA_BYTES } from '../../../src/workflow/run/data-size.js';
import type { WorkflowPlan } from '../../../src/workflow/run/plan.js';
import type { Limits } from '../../../src/config/team-schema.js';
import { workflowDriver } from '../../helpers/workflow-driver.js';
import { expr, state, stmts, workflowPlan } from '../../helpers/workflow-plan.js';

/** check -> fix -> check ..., every state only a script: the loop the probe found (a `done` state is never reached). */
function spin(extra: Partial<WorkflowPlan> = {}): WorkflowPlan {
  return workflowPlan({
    name: 'spin',
    contexts: [{ name: 'notes', starting: [], maxLength: 50_000 }],
    agents: [{ id: 'writer', context: 'notes', role: 'assistant', name: 'Writer', systemMessage: 'You write.', model: 'base', parsingTools: [], requestUserInput: false, tools: [], maxToolSteps: 20 }],
    states: [
      state({
        name: 'check',
        enter: stmts('this.common_data.n = (this.common_data.n || 0) + 1'),
        transitions: [
          { target: 'done', condition: expr('false'), before: null },
          { target: 'fix', condition: null, before: null },
        ],
      }),
      state({ name: 'fix', enter: stmts('this.common_data.m = 1'), transitions: [{ target: 'check', condition: null, before: null }] }),
      state({ name: 'done', final: true }),
    ],
    start: 'check',
    ...extra,
  });
}

/** The sandbox's value for an evaluation: for transitions, the last one (the way round the loop). */
const goOn = (e: Evaluation) => (e.purpose === 'transitions' ? e.transitions!.length - 1 : undefined);

/** Steps a session of the plan; `answer` gives each evaluation the sandbox's answer (transitions: the second, "go on"). */
function driver(plan: WorkflowPlan, limits: Partial<Limits> = {}) {
  const w = workflowDriver(plan, limits);
  const { send, events, evaluation, call } = w;
  /** Answers evaluations (and agent calls) until the session stops asking; returns how many were answered. */
  const runOn = (data: (n: number) => Record<string, unknown> = () => ({})) => {
    let answered = 0;
    for (;;) {
      const fx = evaluation();
      const agent = call();
      if (agent) {
        send({ type: 'agent_replied', turnId: agent.call.turnId, text: 'a line', toolCalls: [] });
      } else if (fx) {
        const common_data = { ...fx.evaluation.scope.common_data, ...data(answered) };
        send({ type: 'evaluated', id: fx.id, result: { ok: true, value: goOn(fx.evaluation), common_data } });
      } else return answered;
      answered += 1;
      if (answered > 100_000) throw new Error('the loop was never stopped');
    }
  };
  const entered = () => events.filter((e) => e.type === 'state_entered').length;
  return { ...w, runOn, entered };
}

const awaiting = (events: EngineEvent[]) => events.filter((e): e is Extract<EngineEvent, { type: 'awaiting_user' }> => e.type === 'awaiting_user');

describe('the loop guard: every workflow loop is bounded, not only its agent turns', () => {
  it('a cycle of script-only states pauses after max_state_entries with one line naming the loop; !continue allows another round', () => {
    const w = driver(spin({ maxStateEntries: 6 }));
    w.send({ type: 'start', brief: 'x' });
    w.runOn();
    // Six entries ran (check, fix, check, fix, check, fix); the seventh is entered and waits.
    expect(w.state().status).toBe('awaiting_user');
    expect(w.state().configuration).toEqual(['check']);
    expect(w.entered()).toBe(7);
    expect(awaiting(w.events).map((e) => [e.code, e.reason])).toEqual([['limit', 'spin: check → fix → check … 6 state entries without an agent turn (max_state_entries 6); !continue to go on']]);
    expect(w.evaluation()).toBeUndefined();

    w.send({ type: 'user_continue' });
    // The waiting state runs first: its entry code, not a re-entry.
    expect(w.evaluation()!.evaluation).toMatchObject({ state: 'check', purpose: 'enter' });
    w.runOn();
    expect(w.entered()).toBe(13);
    expect(awaiting(w.events)).toHaveLength(2);
  });

  it('without max_state_entries the limit is ten per turn of max_turns (here --max-turns 3: 30 entries)', () => {
    const w = driver(spin(), { max_turns: 3 });
    w.send({ type: 'start', brief: 'x' });
    w.runOn();
    expect(w.entered()).toBe(31);
    expect(awaiting(w.events)[0]!.reason).toBe('spin: check → fix → check … 30 state entries without an agent turn (max_state_entries 30); !continue to go on');
  });

  it('a loop through an agent state counts its entries too, and the line says how many agent turns the round had', () => {
    const plan = spin({ maxStateEntries: 8, maxTurns: 100 });
    plan.states[1] = state({ name: 'fix', agent: 'writer', input: expr("'again'"), transitions: [{ target: 'check', condition: null, before: null }] });
    const w = driver(plan);
    w.send({ type: 'start', brief: 'x' });
    w.runOn();
    expect(w.state().turn).toBe(4);
    expect(awaiting(w.events)[0]!.reason).toBe('spin: check → fix → check … 8 state entries with 4 agent turns (max_state_entries 8); !continue to go on');
  });

  it('a loop whose code returns a lot of data pauses once the round returned more than 64 MiB, long before the entry limit', () => {
    const blob = 'x'.repeat(3 * 1024 * 1024);
    const w = driver(spin());
    w.send({ type: 'start', brief: 'x' });
    const answered = w.runOn(() => ({ blob }));
    // 3 MiB per answer: the 22nd answer passes 64 MiB, and the next state entry waits (after the 22nd or 23rd).
    const passing = Math.ceil(ROUND_DATA_BYTES / blob.length);
    expect(answered).toBeGreaterThanOrEqual(passing);
    expect(answered).toBeLessThanOrEqual(passing + 1);
    // One evaluation per entry: the transitions (a constant and a null condition) are decided without the sandbox.
    expect(w.entered()).toBeLessThan(30);
    expect(awaiting(w.events).map((e) => e.reason)).toEqual([
      'spin: check → fix → check … workflow code returned 66 MiB of data in 22 state entries without an agent turn (at most 64 MiB between pauses); !continue to go on',
    ]);
    w.send({ type: 'user_continue' });
    expect(w.evaluation()).toBeDefined();
  });

  it('code that grows common_data past 4 MiB fails its state with one line (the data is not kept)', () => {
    const w = driver(spin());
    w.send({ type: 'start', brief: 'x' });
    const fx = w.evaluation()!;
    w.send({ type: 'evaluated', id: fx.id, result: { ok: true, value: undefined, common_data: { input: 'x', blob: 'y'.repeat(MAX_COMMON_DATA_BYTES) } } });
    expect(w.state().status).toBe('awaiting_user');
    expect(awaiting(w.events).map((e) => [e.code, e.reason])).toEqual([
      [
        'failure',
        "spin: state check failed: enter: common_data would hold 4 MiB (at most 4 MiB): keep large data out of common_data (trim it, or keep it in the agents' workspace files); !continue tries it again",
      ],
    ]);
    expect(w.state().workflow!.frames[0]!.common_data.blob).toBeUndefined();
  });

  it('input from the user at the pause starts a new round too (the user is in the loop)', () => {
    const w = driver(spin({ maxStateEntries: 4 }));
    w.send({ type: 'start', brief: 'x' });
    w.runOn();
    expect(w.entered()).toBe(5);
    w.send({ type: 'user_message', text: 'try once more' });
    expect(w.state().status).toBe('running');
    w.runOn();
    expect(w.entered()).toBe(10);
    expect(awaiting(w.events)).toHaveLength(2);
  });

  it('a session stored before the guard (no loop round in its run) loads and counts from a fresh round', () => {
    const w = driver(spin({ maxStateEntries: 3 }));
    w.send({ type: 'start', brief: 'x' });
    const { loop: _loop, ...run } = w.state().workflow!;
    const old = SessionStateSchema.parse({ ...w.state(), workflow: run });
    expect(old.workflow!.loop).toBeUndefined();
    const def = compileWorkflow(spin({ maxStateEntries: 3 }));
    let s = old;
    let entries = 0;
    for (let i = 0; i < 50 && s.status === 'running'; i++) {
      const fx = step(def, s, { type: 'evaluated', id: s.workflow!.evaluating!.id, result: { ok: true, value: goOn(s.workflow!.evaluating!.evaluation), common_data: {} } });
      s = fx.session;
      entries += fx.effects.filter((e) => e.type === 'emit' && e.event.type === 'state_entered').length;
    }
    expect(s.status).toBe('awaiting_user');
    expect(entries).toBe(4);
  });
});

describe('loopText names the loop', () => {
  it('the shortest cycle at the end, closed on its first state', () => {
    expect(loopText(['a', 'check', 'fix', 'check', 'fix', 'check'])).toBe('check → fix → check');
    expect(loopText(['a', 'b', 'c', 'a', 'b', 'c'])).toBe('c → a → b → c');
    expect(loopText(['spin', 'spin'])).toBe('spin → spin');
  });

  it('no repeat yet: the last states as they came', () => {
    expect(loopText(['a', 'b', 'c', 'd', 'e'])).toBe('b → c → d → e');
    expect(loopText(['a'])).toBe('a');
  });
});

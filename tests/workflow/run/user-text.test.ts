import { describe, expect, it } from 'vitest';
import type { Effect } from '../../../src/engine/effects.js';
import type { EngineEvent } from '../../../src/engine/event-map.js';
import type { EngineInput } from '../../../src/engine/input-events.js';
import type { SessionState } from '../../../src/engine/session.js';
import { initialState, step } from '../../../src/engine/step.js';
import { compileWorkflow } from '../../../src/workflow/run/compile.js';
import { workflowTurns } from '../../../src/workflow/run/turns.js';
import type { AgentPlan, WorkflowPlan } from '../../../src/workflow/run/plan.js';
import { state, workflowPlan } from '../../helpers/workflow-plan.js';

// Issue 22, item 3: what the user types in a workflow is labelled for what it is, and text typed while
// branches run reaches the workflow (its resume state, else the next agent) instead of restarting it.

const agent = (id: string, extra: Partial<AgentPlan> = {}): AgentPlan => ({
  id,
  context: 'c',
  role: 'assistant',
  name: id,
  systemMessage: '',
  model: 'base',
  parsingTools: [],
  requestUserInput: false,
  tools: [],
  maxToolSteps: 20,
  ...extra,
});

/** implement (three branches) -> review (an agent) -> stop; optionally a resume state that goes to review. */
function plan(withResume: boolean): WorkflowPlan {
  return workflowPlan({
    name: 'fan',
    input: { name: 'task' },
    output: { name: 'out' },
    contexts: [{ name: 'c', starting: [], maxLength: 10_000 }],
    agents: ['impl_a', 'impl_b', 'impl_c', 'reviewer', 'listener'].map((id) => agent(id)),
    states: [
      state({
        name: 'implement',
        parallel: { branches: ['a', 'b', 'c'].map((id) => ({ id, agent: `impl_${id}`, input: null, workspace: false })), join: 'all', onFailure: 'continue', timeoutMs: null, into: 'implementations' },
        transitions: [{ target: 'review', condition: null, before: null }],
      }),
      state({ name: 'review', agent: 'reviewer', transitions: [{ target: 'stop', condition: null, before: null }] }),
      ...(withResume ? [state({ name: 'resume', agent: 'listener', transitions: [{ target: 'stop', condition: null, before: null }] })] : []),
      state({ name: 'stop', final: true }),
    ],
    start: 'implement',
    resume: withResume ? 'resume' : null,
  });
}

function driver(p: WorkflowPlan) {
  const def = compileWorkflow(p);
  let s: SessionState = initialState(def, { id: 'w' });
  const events: EngineEvent[] = [];
  // Every state here takes its first transition: the sandbox's answer is given at once.
  const send = (input: EngineInput): Extract<Effect, { type: 'call_agent' }>['call'][] => {
    const r = step(def, s, input);
    s = r.session;
    for (const fx of r.effects) if (fx.type === 'emit') events.push(fx.event);
    const evaluation = r.effects.find((fx) => fx.type === 'evaluate');
    if (evaluation) return send({ type: 'evaluated', id: evaluation.id, result: { ok: true, value: 0, common_data: s.workflow!.frames.at(-1)!.common_data } });
    return r.effects.filter((fx): fx is Extract<Effect, { type: 'call_agent' }> => fx.type === 'call_agent').map((fx) => fx.call);
  };
  return { def, send, events, state: () => s };
}

const userInputs = (events: EngineEvent[]) => events.flatMap((e) => (e.type === 'user_input' ? [{ text: e.text, kind: e.kind }] : []));
const notes = (events: EngineEvent[]) => events.flatMap((e) => (e.type === 'note' ? [e.text] : []));

describe('text typed during a fan-out (pure step)', () => {
  it('without a resume state it goes to the next agent once the branches join; no implementer starts again', () => {
    const w = driver(plan(false));
    const branches = w.send({ type: 'start', brief: 'bech32 in Zig' });
    expect(branches.map((c) => c.persona)).toEqual(['impl_a', 'impl_b', 'impl_c']);
    expect(w.send({ type: 'user_message', text: 'use Zig 0.13' })).toEqual([]);
    // Echoed at once, as the user's interjection (not a brief), and the note says where it goes.
    expect(userInputs(w.events)).toEqual([
      { text: 'bech32 in Zig', kind: 'brief' },
      { text: 'use Zig 0.13', kind: 'interjection' },
    ]);
    expect(notes(w.events).at(-1)).toBe("the branches of implement are running; your input goes to the next agent's turn once they join");
    w.send({ type: 'agent_replied', turnId: branches[0]!.turnId, text: 'a done', toolCalls: [] });
    w.send({ type: 'agent_replied', turnId: branches[1]!.turnId, text: 'b done', toolCalls: [] });
    const next = w.send({ type: 'agent_replied', turnId: branches[2]!.turnId, text: 'c done', toolCalls: [] });
    // The join went on to review: the reviewer is called with the user's words; nobody restarts from `start`.
    expect(next.map((c) => c.persona)).toEqual(['reviewer']);
    expect(next[0]!.inbox).toMatchObject({ kind: 'workflow', user: 'use Zig 0.13' });
    expect(w.events.filter((e) => e.type === 'fanout')).toHaveLength(1);
    expect(w.state().workflow!.deferredInput).toBeUndefined();
    // The prompt carries the words after the state's input, and the context keeps them for later turns.
    const turn = workflowTurns(w.def).request(next[0]!, w.state(), { id: 'reviewer', name: 'reviewer', path: 'review' } as never);
    expect(turn.messages.at(-1)).toEqual({ role: 'user', content: 'The user says: use Zig 0.13' });
    w.send({ type: 'agent_replied', turnId: next[0]!.turnId, text: 'looks fine', toolCalls: [] });
    expect(w.state().workflow!.frames[0]!.contexts.c!.map((m) => m.content)).toEqual(['The user says: use Zig 0.13', 'looks fine']);
  });

  it('with a resume state it goes there once the branches join, with common_data.resume_input set', () => {
    const w = driver(plan(true));
    const branches = w.send({ type: 'start', brief: 'bech32 in Zig' });
    w.send({ type: 'user_message', text: 'stop and listen' });
    w.send({ type: 'user_message', text: 'also this' });
    expect(notes(w.events).at(-1)).toBe("the branches of implement are running; your input goes to the workflow's resume state once they join");
    w.send({ type: 'agent_replied', turnId: branches[0]!.turnId, text: 'a', toolCalls: [] });
    w.send({ type: 'agent_replied', turnId: branches[1]!.turnId, text: 'b', toolCalls: [] });
    const next = w.send({ type: 'agent_replied', turnId: branches[2]!.turnId, text: 'c', toolCalls: [] });
    expect(next.map((c) => c.persona)).toEqual(['listener']);
    const frame = w.state().workflow!.frames[0]!;
    expect(frame.state).toBe('resume');
    expect(frame.common_data.resume_input).toBe('stop and listen\nalso this');
    // The branches' work is kept, and they did not run again.
    expect(Object.keys(frame.common_data.implementations as object)).toEqual(['a', 'b', 'c']);
    expect(w.events.filter((e) => e.type === 'fanout')).toHaveLength(1);
  });
});

describe('text typed during a fan-out that a debate follows (pure step)', () => {
  it('every independent review of round 1 gets the words (not only the first reviewer)', () => {
    const base = plan(false);
    const debating: WorkflowPlan = {
      ...base,
      agents: [...base.agents, agent('rev_a'), agent('rev_b')],
      states: base.states.map((st) =>
        st.name === 'review'
          ? state({
              name: 'review',
              debate: { reviewers: ['rev_a', 'rev_b'], input: null, maxRounds: 2, synthesiser: 'rev_a', into: 'verdicts' },
              transitions: [{ target: 'stop', condition: null, before: null }],
            })
          : st,
      ),
    };
    const w = driver(debating);
    const branches = w.send({ type: 'start', brief: 'bech32 in Zig' });
    w.send({ type: 'user_message', text: 'use Zig 0.13' });
    w.send({ type: 'agent_replied', turnId: branches[0]!.turnId, text: 'a', toolCalls: [] });
    w.send({ type: 'agent_replied', turnId: branches[1]!.turnId, text: 'b', toolCalls: [] });
    const reviews = w.send({ type: 'agent_replied', turnId: branches[2]!.turnId, text: 'c', toolCalls: [] });
    expect(reviews.map((c) => [c.persona, c.inbox])).toEqual([
      ['rev_a', expect.objectContaining({ kind: 'workflow', user: 'use Zig 0.13' })],
      ['rev_b', expect.objectContaining({ kind: 'workflow', user: 'use Zig 0.13' })],
    ]);
    expect(w.state().workflow!.deferredInput).toBeUndefined();
  });

  it('in a SynthDev handler state (its handlers own the context) the words follow the context, not lost', () => {
    const base = plan(false);
    const owned: WorkflowPlan = { ...base, states: base.states.map((st) => (st.name === 'review' ? { ...st, owned: true } : st)) };
    const w = driver(owned);
    const branches = w.send({ type: 'start', brief: 'bech32 in Zig' });
    w.send({ type: 'user_message', text: 'use Zig 0.13' });
    w.send({ type: 'agent_replied', turnId: branches[0]!.turnId, text: 'a', toolCalls: [] });
    w.send({ type: 'agent_replied', turnId: branches[1]!.turnId, text: 'b', toolCalls: [] });
    const [review] = w.send({ type: 'agent_replied', turnId: branches[2]!.turnId, text: 'c', toolCalls: [] });
    const turn = workflowTurns(w.def).request(review!, w.state(), { id: 'reviewer', name: 'reviewer', path: 'review' } as never);
    expect(turn.messages.filter((m) => m.role !== 'system')).toEqual([{ role: 'user', content: 'The user says: use Zig 0.13' }]);
  });
});

describe('what user_input says the text is', () => {
  it('the brief, an answer to request_users_input, a reply to a pause', () => {
    const asking: WorkflowPlan = {
      ...plan(false),
      agents: [agent('asker', { requestUserInput: true })],
      states: [state({ name: 'ask', agent: 'asker', transitions: [{ target: 'stop', condition: null, before: null }] }), state({ name: 'stop', final: true })],
      start: 'ask',
    };
    const w = driver(asking);
    const [call] = w.send({ type: 'start', brief: 'a task' });
    w.send({ type: 'agent_replied', turnId: call!.turnId, text: '', toolCalls: [{ id: 'q1', name: 'request_users_input', arguments: { question: 'Which language?' } }] });
    const [again] = w.send({ type: 'user_message', text: 'Zig' });
    expect(again!.inbox).toMatchObject({ kind: 'workflow_answer', text: 'Zig' });
    w.send({ type: 'agent_failed', turnId: again!.turnId, reason: 'server error' });
    expect(w.state().awaiting?.code).toBe('failure');
    w.send({ type: 'user_message', text: 'try again' });
    expect(userInputs(w.events)).toEqual([
      { text: 'a task', kind: 'brief' },
      { text: 'Zig', kind: 'answer' },
      { text: 'try again', kind: 'reply' },
    ]);
  });
});

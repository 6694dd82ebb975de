import { describe, expect, it } from 'vitest';
import type { Effect } from '../../../src/engine/effects.js';
import type { AgentPlan, WorkflowPlan } from '../../../src/workflow/run/plan.js';
import { workflowDriver } from '../../helpers/workflow-driver.js';
import { expr, state, workflowPlan } from '../../helpers/workflow-plan.js';

const agent = (id: string): AgentPlan => ({ id, context: 'c', role: 'assistant', name: id, systemMessage: '', model: 'base', parsingTools: [], requestUserInput: false, tools: [], maxToolSteps: 20 });

function plan(join: 'all' | 'any' | { quorum: number }, onFailure: 'continue' | 'fail' = 'continue'): WorkflowPlan {
  return workflowPlan({
    name: 'fan',
    input: { name: 'task' },
    output: { name: 'review' },
    contexts: [{ name: 'c', starting: [], maxLength: 10_000 }],
    agents: ['impl_a', 'impl_b', 'impl_c', 'rev_a', 'rev_b'].map(agent),
    states: [
      state({
        name: 'implement',
        parallel: { branches: ['a', 'b', 'c'].map((id) => ({ id, agent: `impl_${id}`, input: null, workspace: true })), join, onFailure, timeoutMs: 60_000, into: 'implementations' },
        transitions: [{ target: 'review', condition: null, before: null }],
      }),
      state({
        name: 'review',
        debate: { reviewers: ['rev_a', 'rev_b'], input: null, maxRounds: 2, synthesiser: 'rev_a', into: 'review' },
        transitions: [{ target: 'stop', condition: null, before: null }],
      }),
      state({ name: 'stop', final: true }),
    ],
    start: 'implement',
  });
}

const verdict = (agree: boolean, approve: boolean, feedback: string, ranking: string[] = []) => [{ name: 'review_verdict', arguments: { agree, approve, feedback, ranking } }];

describe('parallel states (pure step)', () => {
  it('fans out three branches at once, each in its own region, and joins all: results in common_data', () => {
    const w = workflowDriver(plan('all'));
    const calls = w.send({ type: 'start', brief: 'bech32 in Zig' }).filter((fx): fx is Extract<Effect, { type: 'call_agent' }> => fx.type === 'call_agent');
    expect(calls.map((c) => [c.call.branch, c.call.persona, c.call.path, c.call.timeoutMs])).toEqual([
      ['a', 'impl_a', 'implement.a.work', 60_000],
      ['b', 'impl_b', 'implement.b.work', 60_000],
      ['c', 'impl_c', 'implement.c.work', 60_000],
    ]);
    expect(w.state().configuration).toEqual(['implement.a.work', 'implement.b.work', 'implement.c.work']);
    expect(w.events.find((e) => e.type === 'fanout')).toMatchObject({ branches: ['a', 'b', 'c'], join: 'all' });
    // Answers arrive in any order; the join waits for all three.
    w.send({ type: 'agent_replied', turnId: calls[1]!.call.turnId, text: 'b done', toolCalls: [], changes: { files: [{ path: 'b.zig', status: 'added' }], diff: '+b' } });
    expect(w.state().configuration).toEqual(['implement.a.work', 'implement.b.done', 'implement.c.work']);
    w.send({ type: 'agent_failed', turnId: calls[0]!.call.turnId, reason: 'server error 500' });
    expect(w.state().workflow!.frames[0]!.phase).toBe('fanout');
    const after = w.send({ type: 'agent_replied', turnId: calls[2]!.call.turnId, text: 'c done', toolCalls: [] });
    expect(w.events.find((e) => e.type === 'joined')).toMatchObject({ done: ['b', 'c'], failed: [{ branch: 'a', error: 'server error 500' }], outcome: 'continue' });
    expect(w.state().workflow!.frames[0]!.common_data.implementations).toMatchObject({
      a: { ok: false, error: 'server error 500' },
      b: { ok: true, text: 'b done', changes: { diff: '+b' } },
      c: { ok: true },
    });
    // Branch messages carry their branch id.
    expect(w.events.filter((e) => e.type === 'agent_message').map((e) => (e as { branch?: string }).branch)).toEqual(['b', 'c']);
    // The join's transition has no condition: decided in the step, the review debate starts at once (both independent reviews).
    expect(after.map((fx) => fx.type)).toEqual(['call_agent', 'call_agent']);
    expect(w.state().configuration).toEqual(['review']);
    // Joined: the branches are results now, no longer running state.
    expect(w.state().workflow!.frames[0]!.branches).toBeUndefined();
  });

  it('join any: the first branch done cancels the others; quorum out of reach fails the state', () => {
    const any = workflowDriver(plan('any'));
    const calls = any.send({ type: 'start', brief: 'x' }).filter((fx): fx is Extract<Effect, { type: 'call_agent' }> => fx.type === 'call_agent');
    const next = any.send({ type: 'agent_replied', turnId: calls[2]!.call.turnId, text: 'first', toolCalls: [] });
    expect(next.filter((fx) => fx.type === 'abort_call').map((fx) => (fx as { turnId: string }).turnId)).toEqual([calls[0]!.call.turnId, calls[1]!.call.turnId]);
    expect(any.state().workflow!.frames[0]!.common_data.implementations).toMatchObject({ a: { status: 'cancelled' }, b: { status: 'cancelled' }, c: { status: 'done' } });
    const quorum = workflowDriver(plan({ quorum: 2 }, 'continue'));
    const qc = quorum.send({ type: 'start', brief: 'x' }).filter((fx): fx is Extract<Effect, { type: 'call_agent' }> => fx.type === 'call_agent');
    quorum.send({ type: 'agent_failed', turnId: qc[0]!.call.turnId, reason: 'boom' });
    quorum.send({ type: 'agent_failed', turnId: qc[1]!.call.turnId, reason: 'boom' });
    expect(quorum.state().awaiting).toMatchObject({ code: 'failure' });
    expect(quorum.state().awaiting!.reason).toMatch(/the branches did not join/);
  });

  it('a branch whose "when" is not true is skipped: its region ends at once and the join counts only the others', () => {
    const p = plan('all');
    const implement = p.states[0]!;
    const only = {
      ...p,
      states: [
        { ...implement, parallel: { ...implement.parallel!, branches: implement.parallel!.branches.map((b) => ({ ...b, when: expr(`common_data.best == '${b.id}'`) })) } },
        ...p.states.slice(1),
      ],
    };
    const w = workflowDriver(only);
    const first = w.send({ type: 'start', brief: 'x' });
    const ask = first.find((fx) => fx.type === 'evaluate') as Extract<Effect, { type: 'evaluate' }>;
    expect(ask.evaluation).toMatchObject({ purpose: 'branch_input', fields: { 'when:a': expr("common_data.best == 'a'") } });
    const calls = w
      .send({ type: 'evaluated', id: ask.id, result: { ok: true, value: { 'when:a': false, 'when:b': true, 'when:c': false }, common_data: {} } })
      .filter((fx): fx is Extract<Effect, { type: 'call_agent' }> => fx.type === 'call_agent');
    expect(calls.map((c) => c.call.branch)).toEqual(['b']);
    expect(w.state().configuration).toEqual(['implement.a.done', 'implement.b.work', 'implement.c.done']);
    w.send({ type: 'agent_replied', turnId: calls[0]!.call.turnId, text: 'b revised', toolCalls: [] });
    expect(w.events.find((e) => e.type === 'joined')).toMatchObject({ done: ['b'], failed: [], outcome: 'continue' });
    // Every branch skipped: the state goes straight on.
    const none = workflowDriver(only);
    const ev = none.send({ type: 'start', brief: 'x' }).find((fx) => fx.type === 'evaluate') as Extract<Effect, { type: 'evaluate' }>;
    none.send({ type: 'evaluated', id: ev.id, result: { ok: true, value: {}, common_data: {} } });
    expect(none.events.find((e) => e.type === 'joined')).toMatchObject({ done: [], outcome: 'continue' });
  });

  it('a resumed session re-runs only the unfinished branches', () => {
    const w = workflowDriver(plan('all'));
    const calls = w.send({ type: 'start', brief: 'x' }).filter((fx): fx is Extract<Effect, { type: 'call_agent' }> => fx.type === 'call_agent');
    w.send({ type: 'agent_replied', turnId: calls[0]!.call.turnId, text: 'a done', toolCalls: [] });
    const again = w.def.policy.resumeEffects!(w.state());
    expect(again.map((fx) => (fx as { call: { branch: string } }).call.branch)).toEqual(['b', 'c']);
  });
});

describe('debates (pure step)', () => {
  type Call = Extract<Effect, { type: 'call_agent' }>['call'];
  const callsOf = (fx: Effect[]): Call[] => fx.filter((f): f is Extract<Effect, { type: 'call_agent' }> => f.type === 'call_agent').map((f) => f.call);
  function toDebate() {
    const w = workflowDriver(plan('all'));
    const calls = w.send({ type: 'start', brief: 'x' }).filter((fx): fx is Extract<Effect, { type: 'call_agent' }> => fx.type === 'call_agent');
    let first: Effect[] = [];
    for (const c of calls) first = w.send({ type: 'agent_replied', turnId: c.call.turnId, text: `${c.call.branch} done`, toolCalls: [] });
    // The join's transition (no condition) is decided in the step of the last answer: round 1's reviews start together.
    return { w, first: callsOf(first) };
  }
  const callOf = (fx: Effect[]) => callsOf(fx)[0]!;
  const textOf = (call: Call) => (call.inbox as { text: string }).text;

  it("round 1: independent reviews at once (neither sees the other); then each reviewer reads the others' whole messages and verdicts; consensus is all agreeing in one round", () => {
    const { w, first } = toDebate();
    expect(first.map((c) => c.persona)).toEqual(['rev_a', 'rev_b']);
    for (const c of first) {
      expect(textOf(c)).toContain('Round 1 of at most 2: your independent review');
      expect(textOf(c)).not.toContain('The debate so far');
    }
    // The reviews come back in any order; round 2 starts once both are in.
    expect(
      w.send({ type: 'agent_replied', turnId: first[1]!.turnId, text: 'I would ship b: it is the only one with a checksum.', toolCalls: verdict(true, false, 'ship b', ['b', 'a', 'c']) }),
    ).toEqual([]);
    let next = w.send({
      type: 'agent_replied',
      turnId: first[0]!.turnId,
      text: 'b is cleanest, but a misses checksums entirely.',
      toolCalls: verdict(false, false, 'a misses checksums', ['b', 'c', 'a']),
    });
    const round2a = callOf(next);
    expect(round2a.persona).toBe('rev_a');
    expect(textOf(round2a)).toContain('Round 2 of at most 2');
    // Whole messages, in the reviewers' order, each with its verdict.
    expect(textOf(round2a)).toContain('### Round 1, rev_a\nb is cleanest, but a misses checksums entirely.\n(verdict: agree false, approve false, ranking b > c > a; feedback: a misses checksums)');
    expect(textOf(round2a)).toContain('### Round 1, rev_b\nI would ship b: it is the only one with a checksum.\n(verdict: agree true, approve false, ranking b > a > c; feedback: ship b)');
    next = w.send({ type: 'agent_replied', turnId: round2a.turnId, text: 'Agreed: b, and fix a later.', toolCalls: verdict(true, false, 'checksums', ['b', 'c', 'a']) });
    // The second reviewer of round 2 also reads what the first one just said.
    expect(textOf(callOf(next))).toContain('### Round 2, rev_a\nAgreed: b, and fix a later.');
    w.send({ type: 'agent_replied', turnId: callOf(next).turnId, text: 'agreed', toolCalls: verdict(true, false, 'checksums too', ['b', 'a', 'c']) });
    expect(w.events.find((e) => e.type === 'debate_ended')).toMatchObject({ rounds: 2, consensus: true, approve: false, synthesised: false });
    expect(w.state().workflow!.frames[0]!.common_data.review).toMatchObject({ consensus: true, approve: false, ranking: ['b', 'a', 'c'], feedback: 'rev_a: checksums\nrev_b: checksums too' });
    expect(w.events.filter((e) => e.type === 'verdict').map((e) => `${(e as { round: number }).round}:${(e as { reviewer: string }).reviewer}`)).toEqual(['1:rev_b', '1:rev_a', '2:rev_a', '2:rev_b']);
    expect(w.state().workflow!.frames[0]!.debate).toBeUndefined();
  });

  it('all agreeing in their independent reviews is consensus in round 1; a crashed session re-runs the reviews still out', () => {
    const { w, first } = toDebate();
    w.send({ type: 'agent_replied', turnId: first[0]!.turnId, text: 'fine', toolCalls: verdict(true, true, 'ship', ['b']) });
    expect(w.def.policy.resumeEffects!(w.state()).map((fx) => (fx as { call: Call }).call.persona)).toEqual(['rev_b']);
    w.send({ type: 'agent_replied', turnId: first[1]!.turnId, text: 'fine too', toolCalls: verdict(true, true, 'ship', ['b']) });
    expect(w.events.find((e) => e.type === 'debate_ended')).toMatchObject({ rounds: 1, consensus: true, approve: true });
  });

  it('no consensus within max_rounds: the synthesiser writes it; a turn without a verdict counts as not agreeing', () => {
    const { w, first } = toDebate();
    w.send({ type: 'agent_replied', turnId: first[0]!.turnId, text: 'no', toolCalls: [] });
    expect(w.events.some((e) => e.type === 'note' && /rev_a gave no valid review_verdict: counted as not agreeing/.test((e as { text: string }).text))).toBe(true);
    let next = w.send({ type: 'agent_replied', turnId: first[1]!.turnId, text: 'no', toolCalls: verdict(false, false, 'still no') });
    for (let i = 0; i < 2; i++) next = w.send({ type: 'agent_replied', turnId: callOf(next).turnId, text: 'no', toolCalls: verdict(false, false, 'still no') });
    expect(callOf(next)).toMatchObject({ persona: 'rev_a', inbox: { text: expect.stringContaining('did not agree within 2 rounds') } });
    w.send({ type: 'agent_replied', turnId: callOf(next).turnId, text: 'consensus', toolCalls: verdict(true, true, 'ship b', ['b']) });
    expect(w.events.find((e) => e.type === 'debate_ended')).toMatchObject({ consensus: false, approve: true, synthesised: true });
  });

  it('an independent review that fails for good fails the state and cancels the other', () => {
    const { w, first } = toDebate();
    const fx = w.send({ type: 'agent_failed', turnId: first[0]!.turnId, reason: 'server error 500' });
    expect(fx).toContainEqual(expect.objectContaining({ type: 'abort_call', turnId: first[1]!.turnId }));
    expect(w.state().workflow!.frames[0]!.debate).toBeUndefined();
  });
});

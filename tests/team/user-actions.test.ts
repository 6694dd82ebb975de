import { describe, expect, it } from 'vitest';
import { FOREVER, ScriptedModel, type ScriptStep } from '../../src/llm/scripted-model.js';
import { initialState, step } from '../../src/engine/step.js';
import { transcriptOf } from '../../src/memory/transcript.js';
import { payloads, studio, studioRunner } from '../helpers/team.js';

const to = (next: string, extra: Record<string, unknown> = {}): ScriptStep => ({ text: `over to ${next}`, directive: { transition: 'APPROVE_AND_HANDOFF', next_agent: next, ...extra } });
const ask: ScriptStep = { text: 'question for you', directive: { transition: 'RESPOND_TO_USER' } };
/** A promise the test settles when it decides: the scripted step holding it answers then, not after a timer. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('step is pure', () => {
  it('never changes the session it is given and returns effects as data', () => {
    const { def } = studio();
    const s0 = initialState(def, { id: 'x' });
    const frozen = JSON.stringify(s0);
    const { session, effects } = step(def, s0, { type: 'start', brief: 'b' });
    expect(JSON.stringify(s0)).toBe(frozen);
    expect(session.status).toBe('running');
    expect(effects.find((e) => e.type === 'call_agent')).toMatchObject({ call: { turnId: 't1', persona: 'creative_partner', path: 'CREATIVE.creative_partner', attempt: 1 } });
    const again = step(def, session, { type: 'agent_completed', turnId: 'stale', text: 'x', directive: { ok: true, source: 'tool', directive: { transition: 'COMPLETE' } } });
    expect(again.effects).toEqual([]);
  });
});

describe('approval gates', () => {
  it('on_major_change pauses before a cross-major move; !approve takes it', async () => {
    const team = studio();
    team.def.team!.approval = 'on_major_change';
    const model = new ScriptedModel([to('game_designer'), to('lead_engineer'), ask]);
    const { runner, events } = await studioRunner(model, { team });
    runner.start('brief');
    await runner.settled();
    expect(runner.getSnapshot().active).toBe('game_designer');
    expect(runner.getSnapshot().awaiting?.code).toBe('gate');
    const gate = events.filter((e) => e.type === 'awaiting_user').at(-1) as { pending?: { from: string; to: string } };
    expect(gate.pending).toMatchObject({ from: 'CREATIVE.game_designer', to: 'TECHNICAL.lead_engineer' });
    runner.send({ type: 'user_approve' });
    await runner.settled();
    expect(runner.getSnapshot().active).toBe('lead_engineer');
    expect(payloads(events, 'approval').at(-1)).toMatchObject({ by: 'user', of: 'game_designer', status: 'APPROVED' });
  });

  it('every: !rework at a gate sends the work back with the reason; !handoff redirects', async () => {
    const team = studio();
    team.def.team!.approval = 'every';
    const model = new ScriptedModel([to('game_designer'), to('game_designer'), ask]);
    const { runner } = await studioRunner(model, { team });
    runner.start('brief');
    await runner.settled();
    expect(runner.getSnapshot().awaiting?.code).toBe('gate');
    runner.send({ type: 'user_rework', reason: 'too expensive' });
    await runner.settled();
    expect(model.calls[1]!.meta.persona).toBe('creative_partner');
    expect(model.calls[1]!.messages.at(-1)!.content).toContain('The user sent your work back for rework. Reason: too expensive');
    expect(runner.getSnapshot().awaiting?.code).toBe('gate');
    runner.send({ type: 'user_handoff', target: 'cmo' });
    await runner.settled();
    expect(runner.getSnapshot().active).toBe('cmo');
  });
});

describe('user steering', () => {
  it('an interjection aborts the turn in flight and the active persona answers it next', async () => {
    const model = new ScriptedModel([{ ...to('game_designer'), hold: FOREVER }, ask]);
    const { runner, events } = await studioRunner(model);
    runner.start('brief');
    await model.started(1);
    runner.send({ type: 'user_message', text: 'make it about cats' });
    await runner.settled();
    expect(model.calls[1]!.meta.persona).toBe('creative_partner');
    expect(model.calls[1]!.messages.at(-1)!.content).toBe('The user interjects: make it about cats');
    expect(transcriptOf(events).map((t) => `${t.kind}:${t.status ?? ''}`)).toEqual(['user:', 'agent:aborted', 'user:', 'agent:ok']);
  });

  it('a reply while waiting goes to the persona that asked', async () => {
    const model = new ScriptedModel([ask, ask]);
    const { runner } = await studioRunner(model);
    runner.start('brief');
    await runner.settled();
    runner.send({ type: 'user_message', text: 'PC only' });
    await runner.settled();
    expect(model.calls[1]!.meta.persona).toBe('creative_partner');
    expect(model.calls[1]!.messages.at(-1)!.content).toBe('The user replies: PC only');
  });

  it('!call_agent consults a persona and control returns', async () => {
    const model = new ScriptedModel([ask, { text: 'costs are fine', directive: { transition: 'RESPOND_TO_USER' } }, ask]);
    const { runner } = await studioRunner(model);
    runner.start('brief');
    await runner.settled();
    runner.send({ type: 'user_call_agent', target: 'CFO', message: 'can we afford it?' });
    await runner.settled();
    expect(model.calls[1]!.meta.persona).toBe('cfo');
    // The pause the consultation interrupted comes back: the Creative Partner still waits for an answer.
    expect(runner.getSnapshot().awaiting).toMatchObject({ code: 'respond_to_user', reason: 'CFO answered; still waiting: Creative Partner asks you to respond' });
    expect(runner.getSnapshot().active).toBe('creative_partner');
    expect(model.remaining).toBe(1);
  });

  it('!switch_to hands control to the major lead, and is recorded as !switch_to (not !handoff)', async () => {
    const model = new ScriptedModel([ask, ask]);
    const { runner, events } = await studioRunner(model);
    runner.start('brief');
    await runner.settled();
    runner.send({ type: 'user_switch_major', major: 'technical' });
    await runner.settled();
    expect(model.calls[1]!.meta.persona).toBe('lead_engineer');
    expect(payloads(events, 'transition').find((t) => t.to === 'TECHNICAL.lead_engineer')).toMatchObject({ kind: 'user', reason: 'user-requested transition (!switch_to TECHNICAL)' });
    expect(payloads(events, 'arbitration').find((a) => a.decision.winner?.targetId === 'lead_engineer')!.decision.winner).toMatchObject({ reason: '!switch_to TECHNICAL' });
  });

  it('a handoff says its transition once, and scores carry no float noise', async () => {
    const model = new ScriptedModel([{ text: 'over', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer', urgency: 0.6, dependency: 0.7, user_intent: 0.7 } }, ask]);
    const { runner, events } = await studioRunner(model);
    runner.start('brief');
    await runner.settled();
    expect(payloads(events, 'transition').find((t) => t.kind === 'agent')).toMatchObject({ reason: 'HANDOFF_TO_AGENT — only valid proposal' });
    // 0.6 * 0.3 + 0.7 * 0.4 + 0.7 * 0.3 is 0.6699999999999999 in floating point; records hold 0.67.
    expect(payloads(events, 'arbitration')[0]!.decision.proposals[0]!.score).toBe(0.67);
    expect(JSON.stringify(events)).not.toMatch(/\d\.\d{5,}/);
  });

  it('!approve of a question goes on, and its transition names !approve (it said user: !continue)', async () => {
    const { runner, events } = await studioRunner(new ScriptedModel([ask, { ...ask, hold: FOREVER }]));
    runner.start('brief');
    await runner.settled();
    runner.send({ type: 'user_approve' });
    expect(payloads(events, 'transition').at(-1)).toMatchObject({ kind: 'user', reason: 'user: !approve' });
    runner.send({ type: 'user_quit' });
  });

  it('!approve after COMPLETE ends the session with the reason; !quit ends it too', async () => {
    const model = new ScriptedModel([{ text: 'done', directive: { transition: 'COMPLETE' } }]);
    const { runner, events } = await studioRunner(model);
    runner.start('brief');
    await runner.settled();
    runner.send({ type: 'user_approve' });
    expect(runner.getSnapshot().status).toBe('ended');
    expect(events.at(-1)).toMatchObject({ type: 'session_ended', reason: "completed: Creative Partner's result approved by the user" });
    const other = await studioRunner(new ScriptedModel([{ ...ask, hold: FOREVER }]));
    other.runner.start('brief');
    other.runner.send({ type: 'user_quit' });
    await other.runner.settled();
    expect(other.runner.getSnapshot().endReason).toBe('user quit');
  });
});

describe('modes', () => {
  it('simple runs the pipeline once; directives are recorded but do not route', async () => {
    const model = new ScriptedModel([to('ceo'), { text: 'rework!', directive: { transition: 'REQUEST_REWORK', rework_reason: 'x' } }, to('cfo')]);
    const { runner, events } = await studioRunner(model, { mode: 'simple' });
    runner.start('brief');
    await runner.settled();
    expect(model.calls.map((c) => c.meta.persona)).toEqual(['creative_partner', 'game_designer', 'lead_engineer']);
    expect(runner.getSnapshot().awaiting).toMatchObject({ code: 'pipeline_complete', reason: 'pipeline complete (Ideation -> Planning -> Implementation)' });
    expect(events.filter((e) => e.type === 'directive')).toHaveLength(3);
  });

  it('switching simple -> fsm mid-session keeps the transcript and routes by directive again', async () => {
    const second = deferred();
    const model = new ScriptedModel([to('ceo'), { ...to('cfo'), hold: second.promise }, ask]);
    const { runner, events } = await studioRunner(model, { mode: 'simple' });
    runner.start('brief');
    await model.started(2);
    runner.send({ type: 'user_mode', mode: 'fsm' });
    second.resolve();
    await runner.settled();
    expect(model.calls.map((c) => c.meta.persona)).toEqual(['creative_partner', 'game_designer', 'cfo']);
    expect(transcriptOf(events).filter((t) => t.kind === 'agent')).toHaveLength(3);
  });
});

describe('review fixes', () => {
  it('a consultation during a gate keeps the gate: !approve afterwards still takes the held handoff', async () => {
    const team = studio();
    team.def.team!.approval = 'every';
    const model = new ScriptedModel([to('game_designer'), { text: 'affordable', directive: { transition: 'RESPOND_TO_USER' } }, ask]);
    const { runner } = await studioRunner(model, { team });
    runner.start('brief');
    await runner.settled();
    expect(runner.getSnapshot().awaiting?.code).toBe('gate');
    runner.send({ type: 'user_call_agent', target: 'cfo', message: 'can we afford it?' });
    await runner.settled();
    expect(runner.getSnapshot().awaiting).toMatchObject({ code: 'gate', reason: expect.stringMatching(/^CFO answered; still waiting: approval gate/) });
    expect(runner.getSnapshot().active).toBe('creative_partner');
    runner.send({ type: 'user_approve' });
    await runner.settled();
    expect(model.calls.map((c) => c.meta.persona)).toEqual(['creative_partner', 'cfo', 'game_designer']);
    expect(model.remaining).toBe(0);
  });

  it('a consultation while a persona works returns control to that persona with the answer', async () => {
    const model = new ScriptedModel([{ ...to('game_designer'), hold: FOREVER }, { text: 'cost is fine', directive: { transition: 'RESPOND_TO_USER' } }, ask]);
    const { runner } = await studioRunner(model);
    runner.start('brief');
    await model.started(1);
    runner.send({ type: 'user_call_agent', target: 'CFO', message: 'quick check' });
    await runner.settled();
    expect(model.calls.map((c) => c.meta.persona)).toEqual(['creative_partner', 'cfo', 'creative_partner']);
    expect(model.calls[2]!.messages.at(-1)!.content).toContain('CFO was consulted. Their answer:\ncost is fine');
    expect(model.remaining).toBe(0);
  });

  it('simple mode: a reply at a gate does not skip the held stage', async () => {
    const team = studio();
    team.def.team!.approval = 'every';
    const model = new ScriptedModel([to('ceo'), to('ceo'), to('ceo')]);
    const { runner, events } = await studioRunner(model, { team, mode: 'simple' });
    runner.start('brief');
    await runner.settled();
    runner.send({ type: 'user_message', text: 'make it darker' });
    await runner.settled();
    const gates = events.filter((e) => e.type === 'awaiting_user') as { pending?: { to: string } }[];
    expect(gates.map((g) => g.pending?.to)).toEqual(['CREATIVE.game_designer', 'CREATIVE.game_designer']);
  });

  it('steering before the brief only says to type a brief first', async () => {
    const { runner, events } = await studioRunner(new ScriptedModel([]));
    runner.send({ type: 'user_handoff', target: 'ceo' });
    runner.send({ type: 'user_call_agent', target: 'ceo', message: 'hi' });
    expect(runner.getSnapshot().status).toBe('idle');
    expect(events.filter((e) => e.type === 'note').map((e) => (e as { text: string }).text)).toEqual([
      'type a brief first: the team has nothing to work on yet',
      'type a brief first: the team has nothing to work on yet',
    ]);
  });
});

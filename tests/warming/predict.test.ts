import { describe, expect, it } from 'vitest';
import { agentById } from '../../src/engine/definition.js';
import type { AgentCall } from '../../src/engine/moves.js';
import type { SessionState } from '../../src/engine/session.js';
import { initialState } from '../../src/engine/step.js';
import type { TeamInbox } from '../../src/team/inbox.js';
import type { TeamRouting } from '../../src/team/state.js';
import { PREDICTION_WEIGHTS, predictNext, type PredictInput } from '../../src/warming/predict.js';
import { TransitionCounts } from '../../src/warming/transitions.js';
import { studio } from '../helpers/team.js';

const def = studio().def;

/** A session where `persona` has a call in flight with `inbox`, its routing changed as given. */
function input(persona: string, inbox: TeamInbox, routing: Partial<TeamRouting> = {}, extra: Partial<PredictInput> = {}, mode: 'fsm' | 'simple' = 'fsm'): PredictInput {
  const base = initialState(def, { id: 's', mode });
  const call: AgentCall = { turnId: 't1', persona, path: agentById(def, persona)!.path, attempt: 1, inbox };
  const state: SessionState = { ...base, status: 'running', active: persona, inFlight: call, routing: { ...base.routing!, ...routing } };
  return { def, state, call, own: new TransitionCounts(), learned: null, ...extra };
}

const handoff = (from: string, text: string): TeamInbox => ({ kind: 'handoff', from, text, approved: false });
const names = (p: { persona: string }[]) => p.map((x) => x.persona);

describe('predictNext: seed 004 state warming signals (issue 24)', () => {
  it('weighs history 0.4, context 0.4 and dependencies 0.2, as seed 004 does', () => {
    expect(PREDICTION_WEIGHTS).toEqual({ history: 0.4, context: 0.4, dependency: 0.2 });
    const own = new TransitionCounts();
    own.add('game_designer', 'lead_engineer', 3);
    own.add('game_designer', 'art_director', 1);
    const [first] = predictNext(input('game_designer', handoff('creative_partner', 'The island needs a clear concept.'), { history: ['creative_partner'] }, { own }));
    // History 3/4 of the game designer's handoffs; its handoff list allows the lead engineer (0.3); no context word.
    expect(first).toMatchObject({ persona: 'lead_engineer', history: 0.75, context: 0, dependency: 0.3 });
    expect(first!.confidence).toBeCloseTo(0.4 * 0.75 + 0.2 * 0.3, 3);
  });

  it('context: a persona named in the message, or a trigger rule that would fire, scores 1; description words 0.25 each', () => {
    const named = predictNext(input('game_designer', handoff('creative_partner', 'Loop this past the Lead Engineer before we commit.')));
    expect(named[0]).toMatchObject({ persona: 'lead_engineer', context: 1 });
    // The CFO's budget rule: budget talk about an expensive feature (seed 004 scenario B).
    const rule = predictNext(
      input('game_designer', handoff('creative_partner', 'Budget is tight, but we want to add a multiplayer feature.'), {
        recentTexts: ['Budget is tight, but we want to add a multiplayer feature.'],
      }),
    );
    expect(rule[0]).toMatchObject({ persona: 'cfo', context: 1 });
    const words = predictNext(input('creative_partner', handoff('game_designer', 'We need the audience and the positioning first.')));
    expect(words.find((p) => p.persona === 'cmo')).toMatchObject({ context: 0.5 });
  });

  it('reads what the persona says once it has begun, not only the message it answers', () => {
    const inbox = handoff('creative_partner', 'Here is the concept.');
    const before = predictNext(input('game_designer', inbox, { history: ['creative_partner'] }));
    const after = predictNext(input('game_designer', inbox, { history: ['creative_partner'] }, { answer: 'This needs a feasibility check of the netcode first.' }));
    expect(before[0]!.persona).not.toBe('lead_engineer');
    expect(after[0]).toMatchObject({ persona: 'lead_engineer', context: 1 });
  });

  it('dependencies: whoever asked for the rework, whoever handed the work over, the major lead, the handoff list', () => {
    const rework = predictNext(input('concept_artist', { kind: 'rework', from: 'art_director', reason: 'the palette is off', byUser: false }, { history: ['art_director'] }));
    expect(rework[0]).toMatchObject({ persona: 'art_director', dependency: 1 });
    const handed = predictNext(input('lead_engineer', handoff('game_designer', 'Can we build it?'), { history: ['game_designer'] }));
    expect(handed.find((p) => p.persona === 'game_designer')).toMatchObject({ dependency: 0.6 });
    const lead = predictNext(input('cmo', handoff('ceo', 'Position it.'), { history: [] }));
    expect(lead.find((p) => p.persona === 'ceo')).toMatchObject({ dependency: 0.5 });
    expect(lead.find((p) => p.persona === 'cfo')).toMatchObject({ dependency: 0.3 });
  });

  it('never predicts a persona the handoff list does not allow (the rework target excepted), nor the persona itself', () => {
    // concept_artist may hand only to art_director, game_designer and creative_partner.
    const out = predictNext(input('concept_artist', handoff('cfo', 'The CEO and the CFO want sketches of the marketing key art.'), { history: ['cfo'] }));
    expect(names(out).every((p) => ['art_director', 'game_designer', 'creative_partner', 'cfo'].includes(p))).toBe(true);
    expect(names(out)).not.toContain('concept_artist');
    expect(names(out)).not.toContain('ceo');
  });

  it('a move the policy fixes is predicted with confidence 1: a detour back, a consultation back, the next pipeline stage', () => {
    const detour = predictNext(
      input('cfo', { kind: 'detour', from: 'game_designer', text: 'cost?', reason: 'budget review' }, { detours: [{ target: 'cfo', returnTo: 'game_designer', reason: 'budget review' }] }),
    );
    expect(detour).toEqual([{ persona: 'game_designer', confidence: 1, history: 0, context: 0, dependency: 1 }]);
    const consult = predictNext(input('ceo', { kind: 'consult', from: 'lead_engineer', text: 'go?' }, { consultReturn: 'lead_engineer' }));
    expect(names(consult)).toEqual(['lead_engineer']);
    expect(predictNext(input('ceo', { kind: 'consult', from: 'user', text: 'go?' }, { consultReturn: 'user' }))).toEqual([]);
    const pipeline = predictNext(input('creative_partner', { kind: 'brief', text: 'A lighthouse game' }, { pipelineIndex: 0 }, {}, 'simple'));
    expect(names(pipeline)).toEqual(['game_designer']);
    expect(predictNext(input('lead_engineer', handoff('game_designer', 'x'), { pipelineIndex: 2 }, {}, 'simple'))).toEqual([]);
  });

  it("counts the session's own transitions three times the learned ones", () => {
    const own = new TransitionCounts();
    own.add('ceo', 'cfo', 1);
    const learned = TransitionCounts.from({ ceo: { cmo: 3 } });
    const [first, second] = predictNext(input('ceo', handoff('creative_partner', 'x'), {}, { own, learned }));
    expect(first).toMatchObject({ persona: 'cfo', history: 0.5 });
    expect(second).toMatchObject({ persona: 'cmo', history: 0.5 });
  });

  it('is pure: at most three, best first, the same answer for the same input, the input untouched', () => {
    const own = new TransitionCounts();
    own.add('game_designer', 'lead_engineer', 2);
    const i = input('game_designer', handoff('creative_partner', 'The art direction and the budget both need a look.'), { history: ['creative_partner'] }, { own });
    const frozen = JSON.stringify(i.state);
    const a = predictNext(i);
    expect(a.length).toBeLessThanOrEqual(3);
    expect([...a].sort((x, y) => y.confidence - x.confidence)).toEqual(a);
    expect(predictNext(i)).toEqual(a);
    expect(JSON.stringify(i.state)).toBe(frozen);
  });
});

describe('TransitionCounts', () => {
  it('counts persona-to-persona transitions only, by state path', () => {
    const counts = new TransitionCounts();
    const ev = (from: string, to: string) => ({ type: 'transition', from, to, reason: '', kind: 'agent', session_id: 's', seq: 1, at: 0 }) as never;
    expect(counts.addEvent(def, ev('CREATIVE.game_designer', 'TECHNICAL.lead_engineer'))).toBe(true);
    expect(counts.addEvent(def, ev('USER_INTERACTION.user', 'CREATIVE.creative_partner'))).toBe(false);
    expect(counts.addEvent(def, ev('CREATIVE.game_designer', 'STRATEGIC.lead_engineer'))).toBe(false);
    expect(counts.toJSON()).toEqual({ game_designer: { lead_engineer: 1 } });
  });
});

import { describe, expect, it } from 'vitest';
import { arbitrate, scoreOf, type ArbiterPersona } from '../../src/arbiter/arbitrate.js';
import type { Proposal } from '../../src/arbiter/proposal.js';

const roster: ArbiterPersona[] = [
  { id: 'ceo', name: 'CEO', allowed: null },
  { id: 'cfo', name: 'CFO', allowed: null },
  { id: 'game_designer', name: 'Game Designer', allowed: new Set(['lead_engineer', 'art_director', 'ceo', 'cfo']) },
  { id: 'art_director', name: 'Art Director', allowed: null },
  { id: 'lead_engineer', name: 'Lead Engineer', allowed: null },
];
const weights = { urgency: 0.3, dependency: 0.4, user_intent: 0.3 };
const agent = (target: string, urgency: number, dependency: number, user_intent: number, reason = ''): Proposal => ({
  target,
  source: 'agent',
  criteria: { urgency, dependency, user_intent },
  reason,
  proposer: 'game_designer',
});

// Seed 004, scenario A. The seed prints LeadEngineer = 0.75, but its own formula gives
// (0.8*0.3)+(0.9*0.4)+(0.3*0.3) = 0.69; CEO 0.71 and ArtDirector 0.57 are right. The seed's
// stated reason for the LeadEngineer win is the blocking dependency, which troupe models as
// `blocking_dependency`.
const scenarioA = [
  agent('LeadEngineer', 0.8, 0.9, 0.3, 'Need technical feasibility review'),
  agent('ArtDirector', 0.4, 0.6, 0.7, 'Visual style needs definition'),
  agent('CEO', 0.9, 0.5, 0.8, 'Business viability question'),
];

describe('arbitrate', () => {
  it('scores scenario A with the seed formula', () => {
    const d = arbitrate({ from: 'game_designer', proposals: scenarioA, roster, weights, blockingDependency: null });
    const score = (id: string) => d.proposals.find((p) => p.targetId === id)!.score!;
    expect(score('lead_engineer')).toBeCloseTo(0.69, 10);
    expect(score('ceo')).toBeCloseTo(0.71, 10);
    expect(score('art_director')).toBeCloseTo(0.57, 10);
    // Pure weighted score: the CEO's 0.71 is highest.
    expect(d.winner?.targetId).toBe('ceo');
    expect(d.why).toContain('highest score (0.71 vs 0.69)');
  });

  it('picks the Lead Engineer in scenario A when a 0.9 dependency counts as blocking (the seed outcome)', () => {
    const d = arbitrate({ from: 'game_designer', proposals: scenarioA, roster, weights, blockingDependency: 0.9 });
    expect(d.winner?.targetId).toBe('lead_engineer');
    expect(d.why).toMatch(/blocking dependency/);
    expect(d.proposals.map((p) => p.status)).toEqual(['winner', 'lost', 'lost']);
  });

  it('drops unknown personas and targets outside handoff_to, recording why', () => {
    const d = arbitrate({
      from: 'game_designer',
      proposals: [agent('Sound Guy', 1, 1, 1), agent('cfo', 0.1, 0.1, 0.1), agent('art_director', 0.2, 0.2, 0.2)],
      roster: [...roster, { id: 'concept_artist', name: 'Concept Artist', allowed: null }],
      weights,
      blockingDependency: null,
    });
    expect(d.proposals[0]).toMatchObject({ status: 'dropped' });
    expect(d.proposals[0]!.dropReason).toMatch(/unknown persona "Sound Guy"/);
    expect(d.winner?.targetId).toBe('art_director');
    const outside = arbitrate({
      from: 'game_designer',
      proposals: [agent('concept_artist', 1, 1, 1)],
      roster: [...roster, { id: 'concept_artist', name: 'Concept Artist', allowed: null }],
      weights,
      blockingDependency: null,
    });
    expect(outside.winner).toBeNull();
    expect(outside.proposals[0]!.dropReason).toMatch(/not in handoff_to/);
    expect(outside.why).toBe('every proposal was dropped');
  });

  it('breaks ties by dependency, then source order, then roster order', () => {
    const byDependency = arbitrate({ from: 'ceo', proposals: [agent('cfo', 0.8, 0.2, 0.5), agent('lead_engineer', 0.4, 0.5, 0.5)], roster, weights, blockingDependency: null });
    expect(scoreOf({ urgency: 0.8, dependency: 0.2, user_intent: 0.5 }, weights)).toBeCloseTo(scoreOf({ urgency: 0.4, dependency: 0.5, user_intent: 0.5 }, weights), 10);
    expect(byDependency.winner?.targetId).toBe('lead_engineer');
    const bySource = arbitrate({
      from: 'ceo',
      proposals: [{ ...agent('art_director', 0.5, 0.5, 0.5), source: 'queue' }, agent('lead_engineer', 0.5, 0.5, 0.5)],
      roster,
      weights,
      blockingDependency: null,
    });
    expect(bySource.winner?.targetId).toBe('lead_engineer');
    const byRoster = arbitrate({ from: 'ceo', proposals: [agent('lead_engineer', 0.5, 0.5, 0.5), agent('cfo', 0.5, 0.5, 0.5)], roster, weights, blockingDependency: null });
    expect(byRoster.winner?.targetId).toBe('cfo');
  });

  it('lets a user proposal bypass scoring', () => {
    const d = arbitrate({
      from: 'game_designer',
      proposals: [agent('lead_engineer', 1, 1, 1), { target: 'CEO', source: 'user', criteria: { urgency: 0, dependency: 0, user_intent: 0 }, reason: '!handoff', proposer: 'user' }],
      roster,
      weights,
      blockingDependency: 0.9,
    });
    expect(d.winner?.targetId).toBe('ceo');
    expect(d.why).toBe('user command bypasses scoring');
  });

  it('uses configured weights', () => {
    const d = arbitrate({ from: 'game_designer', proposals: scenarioA, roster, weights: { urgency: 0, dependency: 0, user_intent: 1 }, blockingDependency: null });
    expect(d.winner?.targetId).toBe('ceo');
    const e = arbitrate({ from: 'game_designer', proposals: scenarioA, roster, weights: { urgency: 0, dependency: 1, user_intent: 0 }, blockingDependency: null });
    expect(e.winner?.targetId).toBe('lead_engineer');
  });
});

import { describe, expect, it } from 'vitest';
import { FOREVER, ScriptedModel } from '../../src/llm/scripted-model.js';
import { studioRunner } from '../helpers/team.js';
import { transcriptOf } from '../../src/memory/transcript.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';

const transitions = (events: TroupeEvent[]) => events.filter((e): e is Extract<TroupeEvent, { type: 'transition' }> => e.type === 'transition').map((e) => `${e.from} -> ${e.to} (${e.kind})`);

describe('seed 004 scenario B: budget detour', () => {
  it('routes Game Designer -> CFO on budget talk about an expensive feature, then back to the Game Designer', async () => {
    const model = new ScriptedModel([
      { text: 'Budget concerns raised, need cost analysis.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' } },
      { text: 'Proposed action: add a multiplayer feature.', directive: { transition: 'APPROVE_AND_HANDOFF', next_agent: 'lead_engineer', urgency: 0.5, dependency: 0.5, user_intent: 0.5 } },
      { text: 'Multiplayer adds 40% cost; approve only as post-launch.', directive: { transition: 'APPROVE_AND_HANDOFF', next_agent: 'ceo' } },
      { text: 'Understood, multiplayer deferred.', directive: { transition: 'RESPOND_TO_USER' } },
    ]);
    const { runner, events } = await studioRunner(model);
    runner.start('brief');
    await runner.settled();
    expect(transitions(events)).toEqual([
      'USER_INTERACTION.user -> CREATIVE.creative_partner (system)',
      'CREATIVE.creative_partner -> CREATIVE.game_designer (agent)',
      'CREATIVE.game_designer -> STRATEGIC.cfo (rule)',
      'STRATEGIC.cfo -> CREATIVE.game_designer (detour_return)',
      'CREATIVE.game_designer -> USER_INTERACTION.user (system)',
    ]);
    const arbitration = events.filter((e) => e.type === 'arbitration')[1] as Extract<TroupeEvent, { type: 'arbitration' }>;
    const rule = arbitration.decision.proposals.find((p) => p.source === 'rule')!;
    expect(rule).toMatchObject({ targetId: 'cfo', status: 'winner', detour: true });
    expect(rule.score).toBeCloseTo(0.8 * 0.3 + 0.85 * 0.4 + 0.6 * 0.3, 10);
    expect(arbitration.decision.proposals.find((p) => p.targetId === 'lead_engineer')).toMatchObject({ status: 'lost' });
    // The Game Designer gets the CFO's answer; the lost Lead Engineer proposal is queued for later.
    expect(model.calls[3]!.messages.at(-1)!.content).toContain('CFO answered on the detour');
    expect(runner.getSnapshot().routing!.detours).toEqual([]);
    expect(runner.getSnapshot().routing!.queue.map((q) => q.target)).toEqual(['lead_engineer']);
    expect(runner.getSnapshot().routing!.history).toEqual(['creative_partner']);
  });
});

describe('seed 004 scenario C: user override', () => {
  it('!handoff CEO overrides the system route; the CEO gets the full context flagged user-requested', async () => {
    const model = new ScriptedModel([
      { text: 'Concept: creative stuff.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'lead_engineer' }, hold: FOREVER },
      { text: 'CEO view.', directive: { transition: 'RESPOND_TO_USER' } },
    ]);
    const { runner, events } = await studioRunner(model);
    runner.start('brief about a game');
    await model.started(1);
    runner.send({ type: 'user_handoff', target: 'CEO' });
    await runner.settled();
    expect(transitions(events)).toEqual([
      'USER_INTERACTION.user -> CREATIVE.creative_partner (system)',
      'CREATIVE.creative_partner -> STRATEGIC.ceo (user)',
      'STRATEGIC.ceo -> USER_INTERACTION.user (system)',
    ]);
    expect(events.some((e) => e.type === 'agent_aborted')).toBe(true);
    const ceoCall = model.calls[1]!;
    expect(ceoCall.meta.persona).toBe('ceo');
    expect(ceoCall.messages.some((m) => m.content.includes('brief about a game'))).toBe(true);
    expect(ceoCall.messages.at(-1)!.content).toContain('User-requested transition');
    const decision = events.find((e) => e.type === 'arbitration') as Extract<TroupeEvent, { type: 'arbitration' }>;
    expect(decision.decision.why).toBe('user command bypasses scoring');
    expect(transcriptOf(events).find((t) => t.status === 'aborted')?.persona).toBe('creative_partner');
  });

  it('answers an unknown persona with the known ones and changes nothing', async () => {
    const { runner, events } = await studioRunner(new ScriptedModel([{ text: 'x', directive: { transition: 'RESPOND_TO_USER' } }]));
    runner.start('brief');
    const before = runner.getSnapshot().active;
    runner.send({ type: 'user_handoff', target: 'Janitor' });
    const noteEvent = events.find((e) => e.type === 'note') as Extract<TroupeEvent, { type: 'note' }>;
    expect(noteEvent.text).toMatch(/^unknown persona "Janitor"; known: ceo, cfo, cmo, creative_partner/);
    expect(runner.getSnapshot().active).toBe(before);
    return runner.settled();
  });
});

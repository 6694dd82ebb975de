import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { payloads, studio, studioRunner } from '../helpers/team.js';
import { isLiveOnly } from '../../src/kernel/session-kernel.js';

describe('the seed 004 handoff pattern', () => {
  it('runs Creative Partner -> Game Designer -> Creative Partner (rework) -> Game Designer (approve) -> CEO', async () => {
    const model = new ScriptedModel([
      { text: 'Concept v1: a lighthouse keeper.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'Game Designer' } },
      { text: 'No failure state.', directive: { transition: 'REQUEST_REWORK', approval_status: 'REQUEST_REWORK', rework_reason: 'Define what the player can lose.' } },
      { text: 'Concept v2: the light can go out.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' } },
      { text: 'Approved; loop defined.', directive: { transition: 'APPROVE_AND_HANDOFF', approval_status: 'APPROVED', next_agent: 'CEO' } },
      { text: 'Go.', directive: { transition: 'COMPLETE' } },
    ]);
    const { runner, events } = await studioRunner(model);
    runner.start('A lighthouse game');
    await runner.settled();

    const path = events.filter((e) => e.type === 'transition').map((e) => (e as { to: string }).to);
    expect(path).toEqual(['CREATIVE.creative_partner', 'CREATIVE.game_designer', 'CREATIVE.creative_partner', 'CREATIVE.game_designer', 'STRATEGIC.ceo', 'USER_INTERACTION.user']);
    const s = runner.getSnapshot();
    expect(payloads(events, 'approval')).toEqual([
      { turn: 2, by: 'game_designer', of: 'creative_partner', status: 'REQUEST_REWORK', reason: 'Define what the player can lose.' },
      { turn: 4, by: 'game_designer', of: 'creative_partner', status: 'APPROVED' },
    ]);
    // The rework reason reaches the Creative Partner's prompt on its second turn.
    const reworkCall = model.calls[2]!;
    expect(reworkCall.meta.persona).toBe('creative_partner');
    const lastMessage = reworkCall.messages[reworkCall.messages.length - 1]!;
    expect(lastMessage.content).toContain('Game Designer requested rework of your work. Reason: Define what the player can lose.');
    expect(s.status).toBe('awaiting_user');
    expect(s.awaiting?.code).toBe('complete');
    expect(s.routing!.history).toEqual(['creative_partner', 'game_designer']);
    expect(s.routing!.reworks).toEqual({ 'game_designer>creative_partner': 1 });
    expect(model.remaining).toBe(0);
  });

  it('emits major exit/entry and state_entered events for a cross-major handoff', async () => {
    const model = new ScriptedModel([
      { text: 'to engineering', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'lead_engineer' } },
      { text: 'question', directive: { transition: 'RESPOND_TO_USER' } },
    ]);
    const { runner, events } = await studioRunner(model);
    runner.start('brief');
    await runner.settled();
    const names = events.map((e) => e.type);
    const i = events.findIndex((e) => e.type === 'transition' && (e as { to: string }).to === 'TECHNICAL.lead_engineer');
    expect(names.slice(i, i + 4)).toEqual(['transition', 'major_exited', 'major_entered', 'state_entered']);
    expect(events[i + 1]).toMatchObject({ major: 'CREATIVE' });
    expect(events[i + 2]).toMatchObject({ major: 'TECHNICAL' });
    // Stamped once on the bus: time from the injected clock as epoch ms, and a sequence number per stored event.
    expect(events.every((e) => e.session_id === 's-test' && typeof e.at === 'number')).toBe(true);
    const stored = events.filter((e) => !isLiveOnly(e.type)).map((e) => e.seq);
    expect(stored).toEqual(stored.map((_, k) => k + 1));
  });

  it('passes the persona model tier through the resolver', async () => {
    const team = studio();
    const model = new ScriptedModel([{ text: 'hi', directive: { transition: 'RESPOND_TO_USER' } }]);
    const { runner } = await studioRunner(model, { team });
    runner.start('brief');
    await runner.settled();
    expect(model.calls[0]!.model).toBe('test-model');
    expect(model.calls[0]!.tools?.[0]?.name).toBe('handoff_directive');
  });
});

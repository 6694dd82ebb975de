import { describe, expect, it } from 'vitest';
import { ScriptedModel, type ScriptStep } from '../../src/llm/scripted-model.js';
import { studio, studioRunner } from '../helpers/team.js';
import { transcriptOf } from '../../src/memory/transcript.js';

const to = (next: string): ScriptStep => ({ text: `over to ${next}`, directive: { transition: 'HANDOFF_TO_AGENT', next_agent: next } });
const rework: ScriptStep = { text: 'again', directive: { transition: 'REQUEST_REWORK', rework_reason: 'not yet' } };

describe('limits', () => {
  it('stops at max turns with the reason and lets !continue extend the budget', async () => {
    const team = studio({ maxTurns: 3 });
    const model = new ScriptedModel([to('game_designer'), to('lead_engineer'), to('ceo'), { text: 'ok', directive: { transition: 'RESPOND_TO_USER' } }]);
    const { runner } = await studioRunner(model, { team });
    runner.start('brief');
    await runner.settled();
    expect(runner.getSnapshot().awaiting).toMatchObject({ code: 'limit', reason: 'max turns reached (3)' });
    expect(runner.getSnapshot().turn).toBe(3);
    runner.send({ type: 'user_continue' });
    await runner.settled();
    expect(runner.getSnapshot().active).toBe('ceo');
    expect(runner.getSnapshot().turnBudget).toBe(6);
    expect(runner.getSnapshot().awaiting?.code).toBe('respond_to_user');
  });

  it('a reply at the turn limit raises the limit and says so, instead of running past it unseen', async () => {
    const team = studio({ maxTurns: 2 });
    const model = new ScriptedModel([to('game_designer'), { text: 'question', directive: { transition: 'RESPOND_TO_USER' } }, { text: 'thanks', directive: { transition: 'RESPOND_TO_USER' } }]);
    const { runner, events } = await studioRunner(model, { team });
    runner.start('brief');
    await runner.settled();
    expect(runner.getSnapshot()).toMatchObject({ turn: 2, turnBudget: 2, awaiting: { code: 'respond_to_user' } });
    runner.send({ type: 'user_message', text: 'here is my answer' });
    await runner.settled();
    expect(runner.getSnapshot()).toMatchObject({ turn: 3, turnBudget: 4 });
    expect(events.some((e) => e.type === 'note' && e.text === 'turn limit raised to 4 by your reply')).toBe(true);
  });

  it('stops when one pair exceeds max reworks', async () => {
    const team = studio();
    team.def.limits = { ...team.def.limits, max_reworks_per_pair: 1, ping_pong: 99 };
    const model = new ScriptedModel([to('game_designer'), rework, to('game_designer'), rework]);
    const { runner } = await studioRunner(model, { team });
    runner.start('brief');
    await runner.settled();
    expect(runner.getSnapshot().awaiting).toMatchObject({ code: 'limit', reason: 'max reworks reached: Game Designer -> Creative Partner (1)' });
    expect(runner.getSnapshot().routing!.reworks['game_designer>creative_partner']).toBe(2);
  });

  it('detects ping-pong between two personas', async () => {
    const team = studio();
    team.def.limits = { ...team.def.limits, ping_pong: 4 };
    const model = new ScriptedModel([to('game_designer'), to('creative_partner'), to('game_designer'), to('creative_partner'), to('game_designer')]);
    const { runner } = await studioRunner(model, { team });
    runner.start('brief');
    await runner.settled();
    expect(runner.getSnapshot().awaiting?.code).toBe('limit');
    expect(runner.getSnapshot().awaiting?.reason).toBe('ping-pong: Game Designer and Creative Partner handed back and forth 4 times');
    expect(runner.getSnapshot().turn).toBe(4);
    expect(model.remaining).toBe(1);
  });
});

describe('directive repair', () => {
  it('sends the validation error back once, keeping the first words', async () => {
    const model = new ScriptedModel([
      { text: 'My long concept.', toolCalls: [{ name: 'handoff_directive', arguments: '{"transition":"HANDOFF_TO_AGENT"}' }] },
      { text: '', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' } },
      { text: 'hm', directive: { transition: 'RESPOND_TO_USER' } },
    ]);
    const { runner, events } = await studioRunner(model);
    runner.start('brief');
    await runner.settled();
    const repair = model.calls[1]!.messages;
    expect(repair.at(-1)!.content).toContain('next_agent: HANDOFF_TO_AGENT needs next_agent');
    expect(repair.at(-2)).toEqual({ role: 'assistant', content: 'My long concept.' });
    expect(events.filter((e) => e.type === 'directive_invalid')).toHaveLength(1);
    expect(transcriptOf(events).find((t) => t.persona === 'creative_partner')?.text).toBe('My long concept.');
    expect(runner.getSnapshot().active).toBe('game_designer');
  });

  it('goes to the user with a visible note when the repair fails too', async () => {
    const model = new ScriptedModel([{ text: 'words only' }, { text: 'still no directive' }]);
    const { runner, events } = await studioRunner(model);
    runner.start('brief');
    await runner.settled();
    expect(runner.getSnapshot().awaiting?.code).toBe('invalid_directive');
    expect(runner.getSnapshot().awaiting?.reason).toMatch(/Creative Partner gave no valid directive after a repair round/);
    expect(events.filter((e) => e.type === 'directive_invalid').map((e) => (e as { repairing: boolean }).repairing)).toEqual([true, false]);
  });

  it('treats an unknown next persona as no route, never a crash', async () => {
    const model = new ScriptedModel([to('Janitor')]);
    const { runner } = await studioRunner(model);
    runner.start('brief');
    await runner.settled();
    expect(runner.getSnapshot().awaiting?.code).toBe('no_route');
    expect(runner.getSnapshot().awaiting?.reason).toMatch(/unknown persona "Janitor"/);
  });

  it('turns a model failure into a pause that !continue retries', async () => {
    const model = new ScriptedModel([{ error: new Error('server melted') }, { text: 'back', directive: { transition: 'RESPOND_TO_USER' } }]);
    const { runner, events } = await studioRunner(model);
    runner.start('brief');
    await runner.settled();
    expect(runner.getSnapshot().awaiting).toMatchObject({ code: 'failure' });
    expect(events.some((e) => e.type === 'error' && e.message === 'server melted')).toBe(true);
    // A failed attempt is not a visit.
    expect(runner.getSnapshot().visits['CREATIVE.creative_partner']).toBeUndefined();
    runner.send({ type: 'user_continue' });
    await runner.settled();
    expect(transcriptOf(events).at(-1)).toMatchObject({ persona: 'creative_partner', text: 'back' });
    expect(model.calls[1]!.messages.at(-1)!.content).toContain("The user's brief");
  });
});

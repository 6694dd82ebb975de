import { describe, expect, it } from 'vitest';
import type { Effect } from '../../src/engine/effects.js';
import type { EngineEvent } from '../../src/engine/event-map.js';
import type { EngineInput } from '../../src/engine/input-events.js';
import type { SessionState } from '../../src/engine/session.js';
import { initialState, step } from '../../src/engine/step.js';
import { studio } from '../helpers/team.js';

// Issue 22: what the user types is labelled for what it is (items 3, 6), and !approve at a failed turn
// approves nothing (item 6).

function driver() {
  const { def } = studio();
  let s: SessionState = initialState(def, { id: 't' });
  const events: EngineEvent[] = [];
  const send = (input: EngineInput) => {
    const r = step(def, s, input);
    s = r.session;
    for (const fx of r.effects) if (fx.type === 'emit') events.push(fx.event);
    return r.effects.filter((fx): fx is Extract<Effect, { type: 'call_agent' }> => fx.type === 'call_agent').map((fx) => fx.call);
  };
  return { send, events, state: () => s };
}

describe('the team policy', () => {
  it('labels the brief, an interjection while a persona answers, and a reply to a pause', () => {
    const t = driver();
    const [first] = t.send({ type: 'start', brief: 'a lighthouse game' });
    const [second] = t.send({ type: 'user_message', text: 'make it darker' });
    t.send({ type: 'agent_completed', turnId: second!.turnId, text: 'over to you', directive: { ok: true, source: 'tool', directive: { transition: 'RESPOND_TO_USER' } } });
    expect(first!.turnId).not.toBe(second!.turnId);
    expect(t.state().status).toBe('awaiting_user');
    t.send({ type: 'user_message', text: 'yes, go on' });
    expect(t.events.flatMap((e) => (e.type === 'user_input' ? [[e.kind, e.text]] : []))).toEqual([
      ['brief', 'a lighthouse game'],
      ['interjection', 'make it darker'],
      ['reply', 'yes, go on'],
    ]);
  });

  it('!approve at a failed turn records no approval and says there was no work; it retries the turn', () => {
    const t = driver();
    const [call] = t.send({ type: 'start', brief: 'a lighthouse game' });
    t.send({ type: 'agent_failed', turnId: call!.turnId, reason: 'server error 500' });
    expect(t.state().awaiting?.code).toBe('failure');
    const retried = t.send({ type: 'user_approve' });
    expect(t.events.filter((e) => e.type === 'approval')).toEqual([]);
    expect(t.events.find((e) => e.type === 'note' && /nothing to approve/.test(e.text))).toMatchObject({
      text: "nothing to approve: Creative Partner's turn failed; !approve retries it, as !continue does",
    });
    expect(retried.map((c) => c.persona)).toEqual(['creative_partner']);
  });
});

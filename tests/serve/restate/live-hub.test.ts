import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../../src/engine/event-map.js';
import { LiveHub } from '../../../src/serve/restate/live-hub.js';

const delta = (session: string, text: string) => ({ type: 'agent_delta', turn_id: 't1', persona: 'ceo', text, session_id: session, seq: 3, at: 0 }) as TroupeEvent;

describe('live deltas pushed by workers to the serve process', () => {
  it("takes pushes carrying this process's token only", () => {
    const hub = new LiveHub('http://127.0.0.1:4810/live');
    expect(hub.target()).toEqual({ url: 'http://127.0.0.1:4810/live', token: hub.token });
    expect(hub.allows(`Bearer ${hub.token}`)).toBe(true);
    expect(hub.allows(`Bearer ${hub.token.slice(1)}x`)).toBe(false);
    expect(hub.allows(undefined)).toBe(false);
    expect(new LiveHub().target()).toBeUndefined();
  });

  it("hands each session's deltas to that session's readers only, and nothing that is not a delta", () => {
    const hub = new LiveHub();
    const a: TroupeEvent[] = [];
    const b: TroupeEvent[] = [];
    const stopA = hub.subscribe('a', (e) => a.push(e));
    hub.subscribe('b', (e) => b.push(e));
    expect(hub.deliver([delta('a', 'x'), delta('b', 'y'), { type: 'session_ended', session_id: 'a' }, null, 'junk'])).toBe(2);
    expect([a.map((e) => (e as { text: string }).text), b.map((e) => (e as { text: string }).text)]).toEqual([['x'], ['y']]);
    stopA();
    hub.deliver([delta('a', 'z')]);
    expect(a).toHaveLength(1);
    expect(hub.deliver({ not: 'a list' })).toBe(0);
  });

  it('passes on the prediction of who speaks next too (live-only, like the deltas), never a stored kind of event', () => {
    const hub = new LiveHub();
    const got: string[] = [];
    hub.subscribe('a', (e) => got.push(e.type));
    const prediction = { type: 'prediction', turn_id: 't1', persona: 'ceo', on: 'inbox', predictions: [], session_id: 'a', seq: 3, at: 0 };
    expect(hub.deliver([prediction, { ...prediction, type: 'agent_message' }, { ...prediction, type: 42 }])).toBe(1);
    expect(got).toEqual(['prediction']);
  });
});

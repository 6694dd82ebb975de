import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../../src/engine/event-map.js';
import { LiveSender } from '../../../src/serve/restate/live.js';

const prediction = { type: 'prediction', turn_id: 't1', persona: 'ceo', on: 'inbox', predictions: [], session_id: 'a', seq: 3, at: 0 } as unknown as TroupeEvent;
const target = { url: 'http://127.0.0.1:4810/live', token: 'secret' };

/** A fetch whose answers the test gives, one per push. */
function heldFetch() {
  const pushes: { body: string; answer: () => void }[] = [];
  const doFetch = ((_url: string, init: RequestInit) => new Promise<Response>((resolve) => pushes.push({ body: String(init.body), answer: () => resolve(new Response('{}')) }))) as typeof fetch;
  return { pushes, doFetch };
}

describe('live events pushed from the worker to the serve process', () => {
  it('a session waits until its queued live events have been answered before it writes on (CI: a prediction arrived after the turn ended)', async () => {
    const { pushes, doFetch } = heldFetch();
    const live = new LiveSender(doFetch);
    live.push(target, prediction);
    let done = false;
    const waiting = live.delivered('a', 60_000).then(() => (done = true));
    // Sent at once, not after the batching delay.
    expect(pushes).toHaveLength(1);
    expect(JSON.parse(pushes[0]!.body).events[0].type).toBe('prediction');
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    pushes[0]!.answer();
    await waiting;
    expect(done).toBe(true);
  });

  it('waits at most the bound for a serve process that does not answer (live events are best-effort)', async () => {
    const { pushes, doFetch } = heldFetch();
    const live = new LiveSender(doFetch);
    live.push(target, prediction);
    await live.delivered('a', 1);
    expect(pushes).toHaveLength(1);
    // Nothing queued or in flight: no wait at all.
    await new LiveSender(doFetch).delivered('a', 60_000);
  });

  it("a session waits for its own pushes only, not for another session's on the same serve process", async () => {
    const { pushes, doFetch } = heldFetch();
    const live = new LiveSender(doFetch);
    live.push(target, { ...prediction, session_id: 'b' } as TroupeEvent);
    await live.delivered('b', 1);
    expect(pushes).toHaveLength(1);
    // b's push is still unanswered: a waits for nothing (it has nothing queued or in flight).
    let done = false;
    await live.delivered('a', 60_000).then(() => (done = true));
    expect(done).toBe(true);
    pushes[0]!.answer();
  });

  it('a push that fails is no error for the session', async () => {
    const live = new LiveSender((() => Promise.reject(new Error('ECONNREFUSED'))) as typeof fetch);
    live.push(target, prediction);
    await expect(live.delivered('a', 60_000)).resolves.toBeUndefined();
  });
});

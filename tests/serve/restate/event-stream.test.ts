import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../../src/engine/event-map.js';
import type { RestateSessions } from '../../../src/serve/restate/ingress.js';
import { LiveHub } from '../../../src/serve/restate/live-hub.js';
import { restateApp } from '../../../src/serve/restate/restate-app.js';
import { studio } from '../../helpers/team.js';

const ID = '11111111-2222-4333-8444-555555555555';
const stored = (seq: number, type: string, extra: Record<string, unknown> = {}) => ({ type, session_id: ID, seq, at: 0, ...extra }) as unknown as TroupeEvent;
const prediction = { type: 'prediction', turn_id: 't2', persona: 'creative_partner', on: 'inbox', predictions: [], session_id: ID, seq: 4, at: 0 } as unknown as TroupeEvent;

describe('a session stream on the Restate backend', () => {
  it("sends the live events that came while a page was read in their place among its stored events (CI: the prediction came after the turn's end)", async () => {
    const team = studio();
    const live = new LiveHub('http://127.0.0.1:1/live');
    let reads = 0;
    // The first read: the session waits at seq 2. The second: the worker pushed the prediction of the turn that then
    // ran to its end, so the page holds the turn's end and the prediction is in the reader's queue.
    const sessions = {
      plan: async () => null,
      events: async (_id: string, after: number) => {
        reads += 1;
        if (reads === 1) return { events: [stored(1, 'user_input', { text: 'hi' }), stored(2, 'awaiting_user')].filter((e) => e.seq > after), lastSeq: 2, status: 'waiting' };
        if (reads === 2) {
          live.deliver([prediction]);
          return { events: [stored(3, 'user_input', { text: 'more' }), stored(4, 'agent_started'), stored(5, 'awaiting_user')], lastSeq: 5, status: 'waiting' };
        }
        return { events: [], lastSeq: 5, status: 'ended' };
      },
    } as unknown as RestateSessions;
    const app = restateApp({ sessions, team: team.def.name, def: team.def, token: null, maxBodyBytes: 4096, pollMs: 1, live });
    const res = await app.request(`http://127.0.0.1/v1/sessions/${ID}/events`, { headers: { 'Last-Event-ID': '2' } });
    const types = [...(await res.text()).matchAll(/^data: (.*)$/gm)].map((m) => (JSON.parse(m[1]!) as TroupeEvent).type);
    // In its place: after the last stored event before it (its seq), before the turn's end.
    expect(types).toEqual(['user_input', 'agent_started', 'prediction', 'awaiting_user']);
  });

  it('a reader catching up from the start gets a live event after the stored events before it, not first (restate-api: a delta came before session_started)', async () => {
    const team = studio();
    const live = new LiveHub('http://127.0.0.1:1/live');
    const delta = { type: 'agent_delta', turn_id: 't1', persona: 'ceo', text: 'Hel', session_id: ID, seq: 2, at: 0 } as unknown as TroupeEvent;
    let reads = 0;
    const sessions = {
      plan: async () => null,
      events: async () => {
        reads += 1;
        if (reads === 2) live.deliver([delta]);
        if (reads === 2) return { events: [stored(1, 'note', { text: 'opened' }), stored(2, 'user_input', { text: 'hi' }), stored(3, 'note', { text: 'after' })], lastSeq: 3, status: 'waiting' };
        return { events: [], lastSeq: 3, status: reads === 1 ? 'waiting' : 'ended' };
      },
    } as unknown as RestateSessions;
    const app = restateApp({ sessions, team: team.def.name, def: team.def, token: null, maxBodyBytes: 4096, pollMs: 1, live });
    const res = await app.request(`http://127.0.0.1/v1/sessions/${ID}/events`);
    const types = [...(await res.text()).matchAll(/^data: (.*)$/gm)].map((m) => (JSON.parse(m[1]!) as TroupeEvent).type);
    expect(types).toEqual(['note', 'user_input', 'agent_delta', 'note']);
  });
});

describe('where a stream resumes', () => {
  it('after the Last-Event-ID given, from the start when it is no count of events (on Restate -1 was a 400; the embedded backend streamed)', async () => {
    const team = studio();
    const asked: number[] = [];
    const sessions = {
      plan: async () => null,
      events: async (_id: string, after: number) => {
        asked.push(after);
        return { events: [], lastSeq: 0, status: 'ended' };
      },
    } as unknown as RestateSessions;
    const app = restateApp({ sessions, team: team.def.name, def: team.def, token: null, maxBodyBytes: 4096, pollMs: 1 });
    for (const id of ['-1', 'NaN', '1e400', '2.5', '99999999999999999999', '7']) {
      const res = await app.request(`http://127.0.0.1/v1/sessions/${ID}/events`, { headers: { 'Last-Event-ID': id } });
      expect([id, res.status]).toEqual([id, 200]);
      await res.text();
    }
    expect(asked).toEqual([0, 0, 0, 0, 0, 7]);
  });
});

import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../../src/engine/event-map.js';
import { RestateSessions } from '../../../src/serve/restate/ingress.js';
import { LiveHub } from '../../../src/serve/restate/live-hub.js';
import type { IndexEntry, ListingLine } from '../../../src/serve/restate/records.js';
import { restateApp } from '../../../src/serve/restate/restate-app.js';
import { studio } from '../../helpers/team.js';

// Probe (round 11) of `troupe serve --backend restate` as an HTTP client: the workers' push endpoint POST /live and
// the session list. The sessions are a stand-in for the Restate ingress (RestateSessions' own listing code, its calls
// answered here), so what is checked is the serve process's side.

const A = '11111111-2222-4333-8444-555555555555';
const B = '66666666-7777-4888-8999-aaaaaaaaaaaa';
const KEY = 'sk-proj-Ab3dEfGh1jKlMnOpQrStUvWxYz0123456789';
const delta = (session: string, text: string) => ({ type: 'agent_delta', session_id: session, seq: 0, at: 0, persona: 'ceo', turn_id: 't1', delta: text }) as unknown as TroupeEvent;

/** The Restate stand-in: two sessions, A's brief holding a key; A waits at seq 1 with nothing more to come until `ended`. */
function cluster(options: { ended?: () => boolean } = {}) {
  const entries: IndexEntry[] = [
    { id: A, brief: `deploy it; my key is ${KEY}`, team: 'v7_studio', createdAt: '2026-01-01T00:00:00.000Z' },
    { id: B, brief: 'a lighthouse keeper game', team: 'v7_studio', createdAt: '2026-01-01T00:00:00.000Z' },
  ];
  const line = (e: IndexEntry): ListingLine => ({
    id: e.id,
    team: e.team,
    kind: 'team',
    brief: e.brief,
    workflow: null,
    status: 'awaiting_user',
    statusText: 'waiting: user',
    turns: 1,
    updatedAt: e.createdAt,
    hosted: true,
  });
  const sessions = Object.assign(Object.create(RestateSessions.prototype) as RestateSessions, {
    list: async () => entries,
    listing: async (id: string) => line(entries.find((e) => e.id === id)!),
    plan: async () => null,
    events: async (id: string, after: number) => ({
      events: after < 1 ? [{ type: 'awaiting_user', session_id: id, seq: 1, at: 0, code: 'user' } as unknown as TroupeEvent] : [],
      lastSeq: 1,
      status: options.ended?.() ? 'ended' : 'waiting',
    }),
  });
  const team = studio();
  const live = new LiveHub('http://127.0.0.1:1/live');
  const app = restateApp({ sessions, team: team.def.name, def: team.def, token: null, maxBodyBytes: 64 * 1024, pollMs: 5, live });
  const push = (body: string, authorization: string | null = `Bearer ${live.token}`) =>
    app.request('http://127.0.0.1/live', { method: 'POST', body, headers: { 'content-type': 'application/json', ...(authorization === null ? {} : { authorization }) } });
  return { app, live, push };
}

describe('troupe serve on Restate: the session list', () => {
  // The cause was: GET /v1/sessions on Restate (restate-app.ts) answered the listing lines as the sessions' `listing`
  // handler gives them, never through redactDeep, and `?q=` searched the index entries' raw briefs. The session view (viewOf) and the stream redact the same brief, and the embedded backend's
  // list does since round 10 (app.ts listItem): a key typed into a brief is shown by the list, and a query finds it
  // out a character at a time even where the shown brief would be redacted.
  it('shows a key in a brief redacted, and ?q= does not find it out', async () => {
    const { app } = cluster();
    const all = await (await app.request('http://127.0.0.1/v1/sessions')).text();
    expect(all).toContain('sk-proj-[redacted]');
    expect(all).not.toContain(KEY);
    const found = (await (await app.request(`http://127.0.0.1/v1/sessions?q=${encodeURIComponent(KEY.slice(0, 20))}`)).json()) as { sessions: unknown[] };
    expect(found.sessions).toEqual([]);
  });
});

describe('(checked, holds) troupe serve on Restate: POST /live', () => {
  it('refuses a push without the live token, with another token, or with the API token scheme and a wrong length', async () => {
    const { push, live } = cluster();
    const body = JSON.stringify({ events: [delta(A, 'x')] });
    for (const authorization of [null, 'Bearer ', `Bearer ${'0'.repeat(live.token.length)}`, `Bearer ${live.token}0`, `Basic ${live.token}`, live.token.slice(1)]) {
      expect((await push(body, authorization)).status).toBe(401);
    }
  });

  it('a body that is not JSON, not an object or without an events list delivers nothing; one past 1 MiB is refused (413)', async () => {
    const { push } = cluster();
    for (const body of ['', 'not json', 'null', '[1,2]', '{"events":"x"}', '{"events":{"0":{}}}', '{"events":[null,1,"x",[],{}]}']) {
      const answer = await push(body);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ delivered: 0 });
    }
    expect((await push(JSON.stringify({ events: [delta(A, 'x'.repeat(1024 * 1024))] }))).status).toBe(413);
  });

  it('stored kinds of event pushed as live are dropped; a delta reaches its own session’s readers only, redacted', async () => {
    let over = false;
    const { app, push } = cluster({ ended: () => over });
    const read = (id: string) => app.request(`http://127.0.0.1/v1/sessions/${id}/events`);
    const [streamA, streamB] = await Promise.all([read(A), read(B)]);
    const smuggled = ['agent_message', 'session_ended', 'user_input', 'directive', 'transition', 'awaiting_user', 'error'].map((type) => ({ ...delta(A, 'smuggled'), type, seq: 99 }));
    expect(await (await push(JSON.stringify({ events: [...smuggled, delta(A, `for A ${KEY}`), delta(B, 'for B')] }))).json()).toEqual({ delivered: 2 });
    over = true;
    const [textA, textB] = await Promise.all([streamA.text(), streamB.text()]);
    expect(textA).toContain('for A sk-proj-[redacted]');
    expect(textA).not.toContain('for B');
    expect(textA).not.toContain('smuggled');
    expect(textA).not.toContain('id: 99');
    expect(textB).toContain('for B');
    expect(textB).not.toContain('for A');
  });
});

describe('troupe serve on Restate: a push nested deep (round 12 probe)', () => {
  // Hostile input (token holders only): a delta whose field nests 400,000 arrays deep parsed, and went to the
  // readers, whose streams ended when it was written (the recursion of JSON.stringify and redaction). Refused
  // where the push is parsed, with one line; the session's readers go on streaming.
  it('is refused (400) naming the depth, and the readers still get the next delta', async () => {
    let over = false;
    const { app, push } = cluster({ ended: () => over });
    const stream = await app.request(`http://127.0.0.1/v1/sessions/${A}/events`);
    const deep = `{"events":[{"type":"agent_delta","session_id":"${A}","seq":0,"at":0,"persona":"ceo","turn_id":"t1","delta":${'['.repeat(400_000)}${']'.repeat(400_000)}}]}`;
    const refused = await push(deep);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/^live: a push nests deeper than \d+ levels/);
    expect(await (await push(JSON.stringify({ events: [delta(A, 'after the deep one')] }))).json()).toEqual({ delivered: 1 });
    over = true;
    const text = await stream.text();
    expect(text).toContain('after the deep one');
  });

  // Hostile input (token holders only): live kinds of event of another shape. The reader's stream formats each
  // event it writes (its time, its persona): `at: {}` threw "Invalid time value" there and ended the stream.
  it('of another shape than its kind is dropped, and the readers still get the next delta', async () => {
    let over = false;
    const { app, push } = cluster({ ended: () => over });
    const stream = await app.request(`http://127.0.0.1/v1/sessions/${A}/events`);
    const odd = [
      { type: 'agent_delta', session_id: A, seq: 'x', at: {}, persona: { a: 1 }, turn_id: 5, text: { x: [1] } },
      { ...delta(A, 'no time'), at: {} },
      { ...delta(A, 'no seq'), seq: null },
      { type: 'agent_delta', session_id: A },
      { type: 'prediction', session_id: A, seq: 1, at: 0, persona: 'toString', predictions: 'x' },
    ];
    expect(await (await push(JSON.stringify({ events: odd }))).json()).toEqual({ delivered: 0 });
    expect(await (await push(JSON.stringify({ events: [delta(A, 'after the odd ones')] }))).json()).toEqual({ delivered: 1 });
    over = true;
    const text = await stream.text();
    expect(text).toContain('after the odd ones');
    expect(text).not.toContain('no time');
  });
});

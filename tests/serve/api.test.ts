import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { FOREVER, ScriptedModel } from '../../src/llm/scripted-model.js';
import { SseClient } from '../../src/serve/sse-client.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { readEvents, server } from '../helpers/serve.js';

const temp = tempDirPerTest('troupe-serve-');

describe('troupe serve: the API', () => {
  it('reads the price table once per server, not once per session', async () => {
    const prices = join(temp(), 'pricing.json');
    copyFileSync(join(REPO_ROOT, 'pricing.json'), prices);
    const { call } = server({ env: { TROUPE_PRICES: prices } });
    expect((await call('/v1/sessions', { json: { brief: 'first' } })).status).toBe(201);
    rmSync(prices);
    expect((await call('/v1/sessions', { json: { brief: 'second' } })).status).toBe(201);
  });

  it('is behind a bearer token (healthz is not); a wrong or missing token is a 401 with one line', async () => {
    const { app } = server();
    expect((await app.request('/healthz')).status).toBe(200);
    const missing = await app.request('/v1/sessions');
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ error: 'missing bearer token (Authorization: Bearer <TROUPE_SERVE_TOKEN>)' });
    expect((await app.request('/v1/sessions', { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
  });

  it('creates a session, streams its events as SSE with ids, and takes input as typed in the UI', async () => {
    const { call } = server();
    const created = await call('/v1/sessions', { json: { brief: 'A lighthouse keeper game' } });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { id: string; status: string; kind: string };
    expect(session).toMatchObject({ kind: 'team', status: 'running' });
    const events = await readEvents(await call(`/v1/sessions/${session.id}/events`), (es) => es.some((e) => e.type === 'awaiting_user'));
    expect(events[0]).toMatchObject({ type: 'session_started', brief: 'A lighthouse keeper game', id: '1' });
    expect(typeof events[0]!.at).toBe('string');
    const status = await call(`/v1/sessions/${session.id}/input`, { json: { text: '!status' } });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ kind: 'output', title: 'status', lines: expect.arrayContaining([expect.stringMatching(/^state: /)]) });
    const handoff = await call(`/v1/sessions/${session.id}/input`, { json: { text: '!handoff CEO' } });
    expect(handoff.status).toBe(202);
    // Resume the stream after the last event read: only what came since.
    const last = events.at(-1)!.id!;
    const more = await readEvents(await call(`/v1/sessions/${session.id}/events`, { headers: { 'Last-Event-ID': last } }), (es) => es.some((e) => e.type === 'agent_message'));
    expect(Number(more.find((e) => e.id)!.id)).toBeGreaterThan(Number(last));
    expect(more.find((e) => e.type === 'transition')).toMatchObject({ to: 'STRATEGIC.ceo' });
    const read = await call(`/v1/sessions/${session.id.slice(0, 8)}`);
    expect(await read.json()).toMatchObject({ id: session.id, hosted: true });
    const list = await call('/v1/sessions?q=lighthouse');
    expect(((await list.json()) as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toEqual([session.id]);
  });

  it('each SSE message keeps the raw event and adds its display items, worded as the terminal words them, even when resumed mid-log', async () => {
    const { call } = server({
      model: () =>
        new ScriptedModel([
          { text: 'Concept.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }, usage: { promptTokens: 100, completionTokens: 10 } },
          { text: 'Loop.', directive: { transition: 'RESPOND_TO_USER' }, usage: { promptTokens: 200, completionTokens: 20 } },
        ]),
    });
    const { id } = (await (await call('/v1/sessions', { json: { brief: 'A tide game' } })).json()) as { id: string };
    type Shown = TroupeEvent & { id?: string; items: { kind: string; text: string; event: string }[] };
    const events = (await readEvents(await call(`/v1/sessions/${id}/events`), (es) => es.some((e) => e.type === 'awaiting_user'))) as Shown[];
    const transition = events.find((e) => e.type === 'transition' && e.kind === 'agent')!;
    expect(transition).toMatchObject({
      from: 'CREATIVE.creative_partner',
      to: 'CREATIVE.game_designer',
      items: [{ kind: 'transition', event: 'transition', text: 'CREATIVE › Creative Partner -> CREATIVE › Game Designer (HANDOFF_TO_AGENT)' }],
    });
    expect(events.find((e) => e.type === 'usage')!.items).toEqual([]);
    // Resumed after the directive: the transition is still labelled by it (the server folds the log before the resume point).
    const directive = events.find((e) => e.type === 'directive')!;
    const resumed = (await readEvents(await call(`/v1/sessions/${id}/events`, { headers: { 'Last-Event-ID': directive.id! } }), (es) => es.some((e) => e.type === 'awaiting_user'))) as Shown[];
    expect(resumed.find((e) => e.type === 'transition' && e.kind === 'agent')!.items[0]!.text).toBe(transition.items[0]!.text);
    const view = (await (await call(`/v1/sessions/${id}`)).json()) as { usage: { calls: number; byPersona: Record<string, { calls: number }> } };
    expect(view.usage).toMatchObject({ calls: 2, tokens: 330, cost: null });
    expect(Object.keys(view.usage.byPersona)).toEqual(['creative_partner', 'game_designer']);
  });

  it('bad input is a 4xx with one line, never a crash: bad JSON, bad fields, unknown sessions, oversized bodies, unknown commands', async () => {
    const { call } = server();
    const bad = await call('/v1/sessions', { method: 'POST', body: '{"brief": ' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'the body is not JSON' });
    expect(await (await call('/v1/sessions', { json: { brief: 'x', colour: 'red' } })).json()).toMatchObject({ error: expect.stringMatching(/Unrecognized key/) });
    expect(await (await call('/v1/sessions', { json: { team: 'Other Team', brief: 'x' } })).json()).toEqual({ error: 'team: this server runs the team "V7 Studio"' });
    expect((await call('/v1/sessions/nope')).status).toBe(404);
    expect((await call('/v1/sessions/nope/input', { json: { text: 'hi' } })).status).toBe(404);
    const big = await call('/v1/sessions', { json: { brief: 'x'.repeat(5000) } });
    expect(big.status).toBe(413);
    const created = (await (await call('/v1/sessions', { json: { brief: 'a game' } })).json()) as { id: string };
    const unknown = await call(`/v1/sessions/${created.id}/input`, { json: { text: '!dance' } });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ error: 'unknown command "!dance" — type !help for the list' });
  });

  it('an ended session takes no input (409); the session limit answers 429', async () => {
    const { call } = server({ maxSessions: 1, model: () => new ScriptedModel([{ text: 'done', directive: { transition: 'COMPLETE' } }]) });
    const s = (await (await call('/v1/sessions', { json: { brief: 'x' } })).json()) as { id: string };
    await readEvents(await call(`/v1/sessions/${s.id}/events`), (es) => es.some((e) => e.type === 'awaiting_user'));
    expect((await call('/v1/sessions', { json: { brief: 'y' } })).status).toBe(429);
    expect((await call(`/v1/sessions/${s.id}/input`, { json: { text: '!approve' } })).status).toBe(202);
    const again = await call(`/v1/sessions/${s.id}/input`, { json: { text: 'more' } });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: `session ${s.id} has ended; it takes no more input` });
  });

  it('a model failure in one session never affects another', async () => {
    let n = 0;
    const { call } = server({
      model: () => (n++ === 0 ? new ScriptedModel([{ error: new Error('upstream down') }]) : new ScriptedModel([{ text: 'fine', directive: { transition: 'RESPOND_TO_USER' } }])),
    });
    const a = (await (await call('/v1/sessions', { json: { brief: 'a' } })).json()) as { id: string };
    const b = (await (await call('/v1/sessions', { json: { brief: 'b' } })).json()) as { id: string };
    await readEvents(await call(`/v1/sessions/${a.id}/events`), (es) => es.some((e) => e.type === 'awaiting_user'));
    await readEvents(await call(`/v1/sessions/${b.id}/events`), (es) => es.some((e) => e.type === 'awaiting_user'));
    expect(await (await call(`/v1/sessions/${a.id}`)).json()).toMatchObject({ awaiting: { code: 'failure' } });
    expect(await (await call(`/v1/sessions/${b.id}`)).json()).toMatchObject({ awaiting: { code: 'respond_to_user' } });
  });

  it('publishes an OpenAPI 3.1 description generated from the request schemas', async () => {
    const { app } = server();
    const doc = (await (await app.request('/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { anyOf: { properties: Record<string, unknown>; required: string[] }[] } }> } }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual([
      '/healthz',
      '/v1/catalog',
      '/v1/sessions',
      '/v1/sessions/{id}',
      '/v1/sessions/{id}/input',
      '/v1/sessions/{id}/events',
      '/v1/sessions/{id}/graph',
      '/v1/sessions/{id}/timeline',
      '/v1/sessions/{id}/steps/{step}',
      '/v1/sessions/{id}/fork',
      '/v1/sessions/{id}/deliverables',
      '/openapi.json',
    ]);
    // A team session needs its brief, a workflow session its workflow (issue 25: a typed client sent {}).
    const [team, workflow] = doc.paths['/v1/sessions']!.post!.requestBody!.content['application/json']!.schema.anyOf;
    expect([Object.keys(team!.properties), team!.required]).toEqual([['brief', 'team', 'mode', 'models'], ['brief']]);
    expect([Object.keys(workflow!.properties), workflow!.required]).toEqual([['workflow', 'input', 'brief', 'team', 'models'], ['workflow']]);
  });
});

describe('slow SSE readers', () => {
  it('queue while their connection drains, get the queue in one write, and are dropped once too far behind; the session never waits for them', async () => {
    const tick = () => new Promise((r) => setImmediate(r));
    const writes: string[] = [];
    let drain: () => void = () => undefined;
    let ended = 0;
    let keepsUp = false;
    const client = new SseClient(0, 3);
    client.start({ write: (b) => (writes.push(Buffer.from(b).toString()), keepsUp), onDrain: (l) => (drain = l), end: () => void ended++ }, [], 60_000);
    const frame = (seq: number) => ({ seq, live: false, bytes: Buffer.from(`id: ${seq}\n\n`) });
    client.push(frame(1));
    await tick();
    client.push(frame(2));
    client.push(frame(1));
    client.push(frame(3));
    await tick();
    expect(writes).toEqual(['id: 1\n\n']);
    keepsUp = true;
    drain();
    await tick();
    // Queued meanwhile: one write, the repeated seq skipped.
    expect(writes).toEqual(['id: 1\n\n', 'id: 2\n\nid: 3\n\n']);
    keepsUp = false;
    for (let seq = 4; seq <= 8; seq++) client.push(frame(seq));
    expect(client.dropped).toBe(true);
    expect(writes.at(-1)).toMatch(/^event: dropped\n/);
    expect(ended).toBe(1);
  });
});

describe('a session that waits forever for its model', () => {
  it('does not hold up the list or another session', async () => {
    const { call } = server({ model: () => new ScriptedModel([{ text: 'never', hold: FOREVER }]) });
    await call('/v1/sessions', { json: { brief: 'stuck' } });
    const list = await call('/v1/sessions');
    expect(list.status).toBe(200);
  });
});

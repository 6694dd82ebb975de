import { describe, expect, it } from 'vitest';
import type { ChatModel } from '../../src/llm/chat-model.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { readEvents, server } from '../helpers/serve.js';

describe('troupe serve: what a new session can be', () => {
  it('runs a workflow by name on an input; its events carry the workflow state names and its output', async () => {
    const { call } = server();
    const created = await call('/v1/sessions', { json: { workflow: 'coder_reviewer', input: 'a tiny parser' } });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { id: string; kind: string };
    expect(session.kind).toBe('workflow');
    const events = await readEvents(await call(`/v1/sessions/${session.id}/events`), (es) => es.some((e) => e.type === 'session_ended'));
    expect(events.filter((e) => e.type === 'state_entered').map((e) => (e as { path: string }).path)).toEqual(['start', 'code', 'review', 'code', 'review', 'stop']);
    expect(events.find((e) => e.type === 'session_ended')).toMatchObject({ reason: 'workflow coder_reviewer complete', output: expect.stringContaining('work summary') });
    const unknown = await call('/v1/sessions', { json: { workflow: 'nope', input: 'x' } });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toMatch(/^no workflow "nope"/);
  });

  it('takes model ids for the tiers, for that session only', async () => {
    // The demo's words, from a model that answers as the call names it (the demo itself answers every call as "demo").
    const demo = new DemoModel();
    const asked: string[] = [];
    const model = (): ChatModel => ({ label: 'as asked', offline: true, generate: (request) => (asked.push(request.model), demo.generate(request)) });
    const { call } = server({ model });
    const created = await call('/v1/sessions', { json: { brief: 'a lighthouse game', models: { base: 'my-base-model', smart: 'my-smart-model' } } });
    const { id } = (await created.json()) as { id: string };
    const events = await readEvents(await call(`/v1/sessions/${id}/events`), (es) => es.some((e) => e.type === 'agent_started'));
    expect(events.find((e) => e.type === 'agent_started')).toMatchObject({ persona: 'creative_partner', model: expect.stringMatching(/^my-(base|smart)-model$/) });
    expect(asked[0]).toMatch(/^my-(base|smart)-model$/);
    const other = await call('/v1/sessions', { json: { brief: 'another', models: { base: 'has spaces' } } });
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: string }).error).toMatch(/^models\.base: must be a model id/);
  });
});

describe('troupe serve: secrets', () => {
  it('the SSE stream carries events with key-shaped strings redacted, as the --json stream does', async () => {
    const { call } = server();
    const created = await call('/v1/sessions', { json: { brief: 'use key sk-proj-abcdefghijklmnopqrstuvwx1234 for it' } });
    const { id } = (await created.json()) as { id: string };
    const events = await readEvents(await call(`/v1/sessions/${id}/events`), (es) => es.some((e) => e.type === 'session_started'));
    const started = JSON.stringify(events.find((e) => e.type === 'session_started'));
    expect(started).not.toContain('abcdefghijklmnopqrstuvwx1234');
    expect(started).toContain('[redacted]');
  });
});

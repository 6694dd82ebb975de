import { afterEach, describe, expect, it } from 'vitest';
import { EventSource } from 'eventsource';
import type { Server } from 'node:http';
import { ModelError } from '../../src/errors.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { ScriptedModel, FOREVER } from '../../src/llm/scripted-model.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import { listen } from '../../src/serve/listen.js';
import { TOKEN, server } from '../helpers/serve.js';

// Issue 25, the API through a real SSE client (the `eventsource` package, a WHATWG EventSource).
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function running(options: { model?: () => ChatModel } = {}) {
  const made = server({ ...options, token: TOKEN });
  const { server: http, port } = await listen(made.app.fetch, { hostname: '127.0.0.1', port: 0 });
  servers.push(http);
  return { ...made, base: `http://127.0.0.1:${port}` };
}

/** An EventSource with the token, counting the requests it makes. */
function source(url: string) {
  const counted = { requests: 0, statuses: [] as number[] };
  const es = new EventSource(url, {
    fetch: async (input, init) => {
      counted.requests += 1;
      const response = await fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${TOKEN}` } });
      counted.statuses.push(response.status);
      return response;
    },
  });
  return { es, counted };
}

const until = async (check: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('the event stream through the eventsource package', () => {
  it('a troupe error arrives as `troupe_error` on an open connection, never as the EventSource `error` event', async () => {
    const { base, call } = await running({ model: () => new ScriptedModel([{ error: new ModelError('the model is down') }, { text: 'never', hold: FOREVER }]) });
    const { id } = (await (await call('/v1/sessions', { json: { brief: 'fail at once' } })).json()) as { id: string };
    const { es } = source(`${base}/v1/sessions/${id}/events`);
    const errors: unknown[] = [];
    const troupe: { type: string; message: string }[] = [];
    es.onerror = (e) => errors.push(e);
    es.addEventListener('troupe_error', (m) => troupe.push(JSON.parse(m.data)));
    await until(() => troupe.length > 0, 'the troupe_error event');
    expect(troupe[0]).toMatchObject({ type: 'error', message: expect.stringContaining('the model is down') });
    expect(errors).toEqual([]);
    expect(es.readyState).toBe(EventSource.OPEN);
    es.close();
  });

  it('an ended session: the stream says retry:, ends after session_ended, and the reconnect gets 204 so the client stops', async () => {
    const { base, call, host } = await running();
    const created = await call('/v1/sessions', { json: { workflow: 'linear_analysis', input: 'the tides' } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await until(() => !host.has(id), 'the workflow to end');
    const raw = await call(`/v1/sessions/${id}/events`);
    expect((await raw.text()).startsWith('retry: 3000\n\n')).toBe(true);
    const { es, counted } = source(`${base}/v1/sessions/${id}/events`);
    const types: string[] = [];
    es.addEventListener('session_ended', () => types.push('session_ended'));
    await until(() => es.readyState === EventSource.CLOSED, 'the client to stop');
    expect(types).toEqual(['session_ended']);
    expect(counted.statuses).toEqual([200, 204]);
    // Stopped for good: no request after the 204.
    await new Promise((r) => setTimeout(r, 200));
    expect(counted.requests).toBe(2);
  });

  it('a session that ends while the client reads: the live stream closes after session_ended (no keep-alives forever)', async () => {
    const { base, call } = await running({ model: () => new DemoModel() });
    const { id } = (await (await call('/v1/sessions', { json: { workflow: 'linear_analysis', input: 'the moon' } })).json()) as { id: string };
    const { es, counted } = source(`${base}/v1/sessions/${id}/events`);
    let ended = 0;
    es.addEventListener('session_ended', () => (ended += 1));
    await until(() => es.readyState === EventSource.CLOSED, 'the client to stop');
    expect(ended).toBe(1);
    expect(counted.statuses.at(-1)).toBe(204);
  });

  it('a session let go of and opened again: the open stream stays and carries the events of its next run', async () => {
    const model = () => new ScriptedModel([{ text: 'Over to you.', directive: { transition: 'RESPOND_TO_USER' } }]);
    const { base, call, host } = await running({ model });
    const { id } = (await (await call('/v1/sessions', { json: { brief: 'a lighthouse game' } })).json()) as { id: string };
    const { es, counted } = source(`${base}/v1/sessions/${id}/events`);
    const inputs: string[] = [];
    let detached = 0;
    es.addEventListener('user_input', (m) => inputs.push((JSON.parse(m.data) as { text: string }).text));
    es.addEventListener('session_detached', () => (detached += 1));
    await until(() => inputs.length === 1, 'the brief on the stream');
    // !quit lets the session go (saved, resumable); the reader stays connected.
    expect(await (await call(`/v1/sessions/${id}/input`, { json: { text: '!quit' } })).json()).toEqual({ kind: 'quit' });
    await until(() => !host.has(id) && detached === 1, 'the session to be let go of');
    expect(es.readyState).toBe(EventSource.OPEN);
    // Input reopens it; its new events reach the same connection.
    expect((await call(`/v1/sessions/${id}/input`, { json: { text: 'make it co-op' } })).status).toBeLessThan(300);
    await until(() => inputs.includes('make it co-op'), "the reopened session's events on the same stream");
    expect(counted.requests).toBe(1);
    es.close();
  });
});

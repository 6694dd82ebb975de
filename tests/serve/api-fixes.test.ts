import { describe, expect, it } from 'vitest';
import { FOREVER, ScriptedModel } from '../../src/llm/scripted-model.js';
import { server } from '../helpers/serve.js';

const until = async (check: () => boolean | Promise<boolean>, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('troupe serve: the fixes of issue 25', () => {
  it('input to an ended session is refused (409) without reopening it: no event after session_ended, no slot taken', async () => {
    const { call, host, store } = server({ maxSessions: 1 });
    const { id } = (await (await call('/v1/sessions', { json: { workflow: 'linear_analysis', input: 'the tides' } })).json()) as { id: string };
    await until(() => !host.has(id), 'the workflow to end');
    const before = (await store.read(id)).events.length;
    const refused = await call(`/v1/sessions/${id}/input`, { json: { text: 'one more thing' } });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ error: `session ${id} has ended; it takes no more input` });
    expect(host.running).toBe(0);
    const after = await store.read(id);
    expect(after.events.length).toBe(before);
    expect(after.events.at(-1)!.type).toBe('session_ended');
    // The one slot is free: the next session starts.
    expect((await call('/v1/sessions', { json: { brief: 'next' } })).status).toBe(201);
  });

  it('a bad command to a stored session is refused before it is reopened', async () => {
    const { call, host } = server({ maxSessions: 1, model: () => new ScriptedModel([{ text: 'Over to you.', directive: { transition: 'RESPOND_TO_USER' } }]) });
    const { id } = (await (await call('/v1/sessions', { json: { brief: 'one turn' } })).json()) as { id: string };
    await until(async () => ((await (await call(`/v1/sessions/${id}`)).json()) as { status: string }).status === 'awaiting_user', 'the pause');
    await host.release(id, { reason: 'test' });
    const bad = await call(`/v1/sessions/${id}/input`, { json: { text: '!handoff Nobody' } });
    expect(bad.status).toBe(400);
    expect(host.has(id)).toBe(false);
  });

  it('a running session is listed as running, as GET /v1/sessions/:id says (not "interrupted"); the status is the view\'s enum', async () => {
    const { call, host } = server({
      model: () =>
        new ScriptedModel([
          { text: 'thinking', hold: FOREVER },
          { text: 'again', hold: FOREVER },
        ]),
    });
    const { id } = (await (await call('/v1/sessions', { json: { brief: 'a slow one' } })).json()) as { id: string };
    const one = (await (await call(`/v1/sessions/${id}`)).json()) as { status: string };
    const list = (await (await call('/v1/sessions')).json()) as { sessions: { id: string; status: string; statusText: string; hosted: boolean }[] };
    const item = list.sessions.find((s) => s.id === id)!;
    expect(one.status).toBe('running');
    expect(item).toMatchObject({ status: 'running', statusText: 'running', hosted: true });
    await host.stopAll();
  });

  it('an ended workflow names no active persona', async () => {
    const { call, host } = server();
    const { id } = (await (await call('/v1/sessions', { json: { workflow: 'linear_analysis', input: 'x' } })).json()) as { id: string };
    await until(() => !host.has(id), 'the end');
    expect(await (await call(`/v1/sessions/${id}`)).json()).toMatchObject({ status: 'ended', active: null });
  });
});

describe("troupe serve without a token: only this machine's own pages", () => {
  const tokenless = () => server({ token: null });
  const post = (app: ReturnType<typeof server>['app'], headers: Record<string, string>, body = '{"brief":"x"}') =>
    app.request('/v1/sessions', { method: 'POST', headers: { host: '127.0.0.1:4810', ...headers }, body });

  it('refuses a Host that is not a loopback name (DNS rebinding), on every route', async () => {
    const { app } = tokenless();
    for (const path of ['/', '/v1/sessions', '/openapi.json']) {
      const r = await app.request(path, { headers: { host: 'evil.example' } });
      expect(r.status, path).toBe(403);
      expect(((await r.json()) as { error: string }).error).toMatch(/^Host "evil.example" is not a name of this server/);
    }
    expect((await app.request('/v1/sessions', { headers: { host: 'localhost:4810' } })).status).toBe(200);
    expect((await app.request('/v1/sessions', { headers: { host: '[::1]:4810' } })).status).toBe(200);
  });

  it('refuses a cross-origin request and a write that is not JSON (a no-cors text/plain POST); nothing is created', async () => {
    const { app, store } = tokenless();
    expect((await post(app, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(app, { 'content-type': 'application/json', origin: 'http://localhost:9999' })).status).toBe(403);
    expect((await post(app, { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post(app, { 'content-type': 'application/x-www-form-urlencoded' }, 'brief=x')).status).toBe(415);
    expect(await store.ids()).toEqual([]);
    expect((await post(app, { 'content-type': 'application/json', origin: 'http://127.0.0.1:4810', 'sec-fetch-site': 'same-origin' })).status).toBe(201);
  });

  it('answers to a configured name (TROUPE_SERVE_ALLOWED_HOSTS)', async () => {
    const { SessionHost } = await import('../../src/serve/host.js');
    const { serveApp } = await import('../../src/serve/app.js');
    const { host } = tokenless();
    const app = serveApp({ host: host as InstanceType<typeof SessionHost>, token: null, maxBodyBytes: 4096, allowedHosts: ['box.lan'] });
    expect((await app.request('/v1/sessions', { headers: { host: 'box.lan:4810' } })).status).toBe(200);
    expect((await app.request('/v1/sessions', { headers: { host: 'other.lan' } })).status).toBe(403);
  });
});

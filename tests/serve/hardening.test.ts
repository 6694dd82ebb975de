import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DemoModel } from '../../src/llm/demo-model.js';
import { serveApp } from '../../src/serve/app.js';
import { SessionHost } from '../../src/serve/host.js';
import { tokenProblem } from '../../src/serve/serve-token.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import type { Child } from '../helpers/child.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { cliProcess } from '../helpers/crash-run.js';
import { readEvents, TOKEN } from '../helpers/serve.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const HOSTILE = join(REPO_ROOT, 'tests', 'fixtures', 'workflows', 'hostile');
/** A workflow file anywhere on the server's disk (here: a test fixture outside every workflow directory). */
const ON_DISK = join(HOSTILE, 'object-input.json');
const STRONG = 'c0ffee15deadbeef0123456789abcdef';
const temp = tempDirPerTest('troupe-serve-hardening-');

/** A `troupe serve` app on an in-memory store, as serve-command builds it (paths allowed or not). */
function app(options: { allowWorkflowPaths?: boolean } = {}) {
  const store = new MemoryStore();
  const team = studio();
  const workflows = { load: (name: string) => loadWorkflowOrThrow(name, { cwd: REPO_ROOT, team: team.loaded }) };
  const host = new SessionHost({ store, team, teamDir: REPO_ROOT, env: { TROUPE_MODEL: 'test-model' }, maxSessions: 10, model: () => new DemoModel(), workflows, ...options });
  const served = serveApp({ host, token: TOKEN, maxBodyBytes: 64 * 1024, keepAliveMs: 60_000 });
  const post = (path: string, json: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
    served.request(path, { method: 'POST', body: JSON.stringify(json), headers: { 'content-type': 'application/json', ...headers } });
  return { served, store, post };
}

const PATH_REFUSED = "workflow: give the name of one of this server's workflows (troupe workflows lists them), not a path; paths run only on a server started with troupe serve --allow-workflow-paths";

describe('troupe serve: a token in the URL only opens the event stream', () => {
  it('?access_token= is refused on POST routes and on other GETs; it opens GET …/events', async () => {
    const { served, post } = app();
    const inUrl = `access_token=${TOKEN}`;
    const refused = { error: 'access_token in the URL is accepted only on GET /v1/sessions/:id/events; send Authorization: Bearer <TROUPE_SERVE_TOKEN>' };
    const create = await post(`/v1/sessions?${inUrl}`, { brief: 'a game' }, {});
    expect(create.status).toBe(401);
    expect(await create.json()).toEqual(refused);
    const created = (await (await post('/v1/sessions', { brief: 'a lighthouse game' })).json()) as { id: string };
    const input = await post(`/v1/sessions/${created.id}/input?${inUrl}`, { text: '!quit' }, {});
    expect(input.status).toBe(401);
    expect((await served.request(`/v1/sessions?${inUrl}`)).status).toBe(401);
    // POST to the stream's path with the token in the URL: refused as well (no such route takes it).
    expect((await post(`/v1/sessions/${created.id}/events?${inUrl}`, {}, {})).status).toBe(401);
    const stream = await served.request(`/v1/sessions/${created.id}/events?${inUrl}`);
    expect(stream.status).toBe(200);
    const events = await readEvents(stream, (es) => es.length > 0);
    expect(events[0]).toMatchObject({ type: 'session_started', brief: 'a lighthouse game' });
    expect((await served.request(`/v1/sessions/${created.id}/events?access_token=wrong`)).status).toBe(401);
  });
});

describe('troupe serve: only named workflows run over the API', () => {
  it('a workflow path is refused (403, nothing created): absolute, relative, .json, a folder; a name runs', async () => {
    const { post, store } = app();
    for (const workflow of [ON_DISK, 'tests/fixtures/workflows/hostile/object-input.json', './workflows/coder_reviewer.json', '../etc', 'object-input.json', HOSTILE]) {
      const answer = await post('/v1/sessions', { workflow, input: '{"a": 1}' });
      expect(answer.status, workflow).toBe(403);
      expect(await answer.json()).toEqual({ error: PATH_REFUSED });
    }
    expect(await store.ids()).toEqual([]);
    expect((await post('/v1/sessions', { workflow: 'linear_analysis', input: 'tides' })).status).toBe(201);
  });

  it('a server started to allow paths runs one', async () => {
    const { post, served } = app({ allowWorkflowPaths: true });
    const created = await post('/v1/sessions', { workflow: ON_DISK, input: '{"a": 1}' });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const events = await readEvents(await served.request(`/v1/sessions/${id}/events`, { headers: { authorization: `Bearer ${TOKEN}` } }), (es) => es.some((e) => e.type === 'session_ended'));
    expect(events.find((e) => e.type === 'session_ended')).toMatchObject({ reason: 'workflow object_input complete', output: 'object' });
  });

  it('the team is named, never a directory: a path is refused; input nested too deep is refused before a session exists', async () => {
    const { post, store } = app();
    const team = await post('/v1/sessions', { team: join(REPO_ROOT, 'tests', 'fixtures', 'teams', 'base'), brief: 'x' });
    expect(team.status).toBe(400);
    expect(await team.json()).toEqual({ error: 'team: this server runs the team "V7 Studio"' });
    const deep = await post('/v1/sessions', { workflow: 'linear_analysis', input: '['.repeat(200) + ']'.repeat(200) });
    // linear_analysis takes text: any text is its input. A workflow taking an object refuses deep JSON.
    expect(deep.status).toBe(201);
    const { post: postPaths, store: pathStore } = app({ allowWorkflowPaths: true });
    const refused = await postPaths('/v1/sessions', { workflow: ON_DISK, input: '['.repeat(200) + ']'.repeat(200) });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'input: the input of workflow object_input nests deeper than 100 levels of objects and arrays (at [0][0][0][0]…): give it flatter JSON' });
    expect(await pathStore.ids()).toEqual([]);
    expect((await store.ids()).length).toBe(1);
  });
});

describe('troupe serve off loopback needs a strong token', () => {
  it('says why a token is refused and how to make one', () => {
    expect(tokenProblem(null, '127.0.0.1')).toBeNull();
    expect(tokenProblem('x', 'localhost')).toBeNull();
    expect(tokenProblem(null, '0.0.0.0')).toBe('serve: listening on 0.0.0.0 needs a token — set TROUPE_SERVE_TOKEN (make one with: openssl rand -hex 32), or listen on 127.0.0.1');
    expect(tokenProblem('x', '0.0.0.0')).toBe('serve: TROUPE_SERVE_TOKEN is too weak to listen on 0.0.0.0 (1 characters; at least 32, random, for 128 bits) — make one with: openssl rand -hex 32');
    expect(tokenProblem('a'.repeat(64), '0.0.0.0')).toMatch(/^serve: TROUPE_SERVE_TOKEN is too weak to listen on 0\.0\.0\.0 \(64 characters;/);
    expect(tokenProblem('0123456789'.repeat(3).slice(0, 31), '::')).toMatch(/too weak/);
    expect(tokenProblem(STRONG, '0.0.0.0')).toBeNull();
  });

  it('a one-character token off loopback: troupe serve refuses to start, in one line (exit 2)', async () => {
    // 127.0.0.2 is not one of the loopback names, so the off-loopback rules apply (and nothing leaves the machine).
    const weak = await runCli(['serve', '--host', '127.0.0.2', '--port', '0'], cleanEnv({ TROUPE_SERVE_TOKEN: 'x' }));
    expect(weak.code).toBe(2);
    expect(weak.stderr).toMatch(/serve: TROUPE_SERVE_TOKEN is too weak to listen on 127\.0\.0\.2 \(1 characters; at least 32, random, for 128 bits\) — make one with: openssl rand -hex 32/);
    const none = await runCli(['serve', '--host', '127.0.0.2', '--port', '0'], cleanEnv());
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/serve: listening on 127\.0\.0\.2 needs a token/);
  });
});

describe('a real troupe serve process', () => {
  let served: Child | null = null;
  afterEach(async () => {
    await served?.kill('SIGTERM');
    served = null;
  });

  async function start(args: string[]): Promise<string> {
    served = cliProcess('serve', ['serve', '--demo', '--host', '127.0.0.2', '--port', '0', ...args], cleanEnv({ TROUPE_DATA_DIR: temp(), TROUPE_SERVE_TOKEN: STRONG, TROUPE_DEMO_PACE_MS: '0' }));
    const url = (await served.waitFor(/^http:\/\/127\.0\.0\.2:\d+\/$/)).trim();
    await served.waitFor(/^troupe serve · /);
    return url;
  }
  const post = (base: string, path: string, json: unknown, auth = true) =>
    fetch(new URL(path, base), { method: 'POST', body: JSON.stringify(json), headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${STRONG}` } : {}) } });

  it('with a strong token off loopback: the header works, the URL token only for the stream, named workflows only', async () => {
    const base = await start([]);
    expect(served!.lines.join('\n')).toContain('named workflows only');
    // Which model new sessions run on, and where the console is (the first line's URL).
    expect(served!.lines.join('\n')).toMatch(/^troupe serve · team V7 Studio · demo model \(offline.*the console: open the URL above in a browser/m);
    expect((await post(base, `/v1/sessions?access_token=${STRONG}`, { brief: 'x' }, false)).status).toBe(401);
    const created = await post(base, '/v1/sessions', { workflow: 'linear_analysis', input: 'tides' });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const stream = await fetch(new URL(`/v1/sessions/${id}/events?access_token=${STRONG}`, base));
    expect(stream.status).toBe(200);
    expect((await readEvents(stream, (es) => es.length > 0))[0]).toMatchObject({ type: 'session_started' });
    const path = await post(base, '/v1/sessions', { workflow: ON_DISK, input: '{}' });
    expect(path.status).toBe(403);
    expect(await path.json()).toEqual({ error: PATH_REFUSED });
  }, 30_000);

  it('started with --allow-workflow-paths, it runs a workflow by path', async () => {
    const base = await start(['--allow-workflow-paths']);
    expect(served!.lines.join('\n')).toContain('workflows by name or path');
    const created = await post(base, '/v1/sessions', { workflow: ON_DISK, input: '{"a": 1}' });
    expect(created.status).toBe(201);
  }, 30_000);
});

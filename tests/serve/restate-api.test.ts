import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { Child, until } from '../helpers/child.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { RestateCluster } from '../helpers/restate-cluster.js';
import { SessionListItemSchema } from '../../src/serve/api-schema.js';
import { TaggedScript } from '../helpers/tagged-script.js';
import { REPO_ROOT } from '../helpers/team.js';

// The live turn answers once the test's reader is connected: live deltas are best-effort, and a reader that
// connects late (a loaded machine) would miss the first ones.
let readerConnected: () => void = () => {};
const liveReader = new Promise<void>((resolve) => (readerConnected = resolve));
const script = new TaggedScript({
  api: [{ transition: 'RESPOND_TO_USER' }, { transition: 'RESPOND_TO_USER' }],
  end: [{ transition: 'COMPLETE' }],
  fail: [{ fail: true }],
  fine: [{ transition: 'RESPOND_TO_USER' }],
  interject: [{ next: 'game_designer', delayFirstMs: 30_000 }, { transition: 'RESPOND_TO_USER' }],
  cli: [{ transition: 'RESPOND_TO_USER' }],
  listed: [{ transition: 'RESPOND_TO_USER' }],
  live: [{ transition: 'RESPOND_TO_USER', chunkDelayMs: 150, gate: liveReader }],
});
const waiting = (events: TroupeEvent[]) => events.some((e) => e.type === 'awaiting_user');
let cluster: RestateCluster;

beforeAll(async () => {
  cluster = await RestateCluster.start(script, 2);
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('troupe serve --backend restate: the same API as the embedded backend', () => {
  it('creates a session, streams its events (resuming after Last-Event-ID), takes lines as typed in the UI, lists and finds sessions by prefix', async () => {
    const created = await cluster.call('/v1/sessions', { json: { brief: 'A lighthouse keeper game [[tag api]]' } });
    expect(created.status).toBe(201);
    const view = (await created.json()) as { id: string };
    expect(view).toMatchObject({ kind: 'team', definition: 'V7 Studio', status: 'running', hosted: true, brief: 'A lighthouse keeper game [[tag api]]' });
    const events = await cluster.stream(view.id, waiting);
    expect(events[0]).toMatchObject({ type: 'session_started', id: '1', session_id: view.id });
    expect(typeof events[0]!.at).toBe('string');

    const status = await cluster.call(`/v1/sessions/${view.id}/input`, { json: { text: '!status' } });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ kind: 'output', title: 'status', lines: expect.arrayContaining([expect.stringMatching(/^state: /)]) });
    const reply = await cluster.call(`/v1/sessions/${view.id}/input`, { json: { text: 'Sounds good, go on' } });
    expect(reply.status).toBe(202);
    const stored = (es: typeof events) => es.filter((e) => e.id !== undefined);
    const last = stored(events).at(-1)!.id!;
    const more = await cluster.stream(view.id, (es) => es.some((e) => e.type === 'awaiting_user'), last);
    expect(Number(stored(more)[0]!.id)).toBe(Number(last) + 1);
    expect(more.find((e) => e.type === 'user_input')).toMatchObject({ text: 'Sounds good, go on' });

    expect(await (await cluster.call(`/v1/sessions/${view.id.slice(0, 8)}`)).json()).toMatchObject({ id: view.id, turn: 2, status: 'awaiting_user' });
    const listed = (await (await cluster.call('/v1/sessions?q=lighthouse')).json()) as { sessions: { id: string; status: string; turns: number }[] };
    // The list item the embedded backend gives (SessionListItemSchema): the status the view gives, and its words (it gave the words as the status, and no workflow).
    const item = listed.sessions.find((s) => s.id === view.id);
    expect(item).toMatchObject({ status: 'awaiting_user', statusText: 'waiting: respond_to_user', workflow: null, turns: 2 });
    expect(SessionListItemSchema.strict().safeParse(item).success).toBe(true);
  });

  it('bad input is a 4xx with one line of JSON: bad JSON, unknown fields, workflows, unknown sessions, oversized bodies, unknown commands', async () => {
    const bad = await cluster.call('/v1/sessions', { method: 'POST', body: '{"brief": ' });
    expect([bad.status, await bad.json()]).toEqual([400, { error: 'the body is not JSON' }]);
    expect(await (await cluster.call('/v1/sessions', { json: { brief: 'x', colour: 'red' } })).json()).toMatchObject({ error: expect.stringMatching(/Unrecognized key/) });
    expect((await cluster.call('/v1/sessions', { json: { workflow: 'review', input: 'x' } })).status).toBe(400);
    // A workflow by path runs only on workers started with --allow-workflow-paths.
    const byPath = await cluster.call('/v1/sessions', { json: { workflow: '/etc/passwd', input: 'x' } });
    expect([byPath.status, ((await byPath.json()) as { error: string }).error]).toEqual([
      403,
      expect.stringMatching(/^workflow: give the name of one of the workers' workflows .* troupe worker --allow-workflow-paths$/),
    ]);
    const unknown = await cluster.call('/v1/sessions/00000000-0000-4000-8000-000000000000');
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: 'no session "00000000-0000-4000-8000-000000000000"' }]);
    expect((await cluster.call('/v1/sessions/00000000-0000-4000-8000-000000000000/input', { json: { text: 'hi' } })).status).toBe(404);
    expect((await cluster.call('/v1/sessions/zzzz/input', { json: { text: 'hi' } })).status).toBe(404);
    expect((await cluster.call('/v1/sessions', { json: { brief: 'x'.repeat(5000) } })).status).toBe(413);
    const id = await cluster.create('Another game [[tag fine]]');
    const dance = await cluster.call(`/v1/sessions/${id}/input`, { json: { text: '!dance' } });
    expect([dance.status, await dance.json()]).toEqual([400, { error: 'unknown command "!dance" — type !help for the list' }]);
  });

  it('an ended session takes no more input (409)', async () => {
    const id = await cluster.create('A short one [[tag end]]');
    await cluster.stream(id, waiting);
    expect((await cluster.call(`/v1/sessions/${id}/input`, { json: { text: '!approve' } })).status).toBe(202);
    await cluster.waitFor(id, (v) => v.status === 'ended');
    const again = await cluster.call(`/v1/sessions/${id}/input`, { json: { text: 'more' } });
    expect([again.status, await again.json()]).toEqual([409, { error: `session ${id} has ended; it takes no more input` }]);
  });

  it('a model failure in one session never affects another', async () => {
    const [a, b] = await Promise.all([cluster.create('Fails [[tag fail]]'), cluster.create('Works [[tag fine]]')]);
    expect(await cluster.waitFor(a, (v) => v.status === 'awaiting_user')).toMatchObject({ awaiting: { code: 'failure' } });
    expect(await cluster.waitFor(b, (v) => v.status === 'awaiting_user')).toMatchObject({ awaiting: { code: 'respond_to_user' } });
  });

  it('an interjection cancels the invocation running the session: the call in flight is aborted at the model server, the interjection is applied at once', async () => {
    const id = await cluster.create('A lighthouse keeper game [[tag interject]]');
    await until('the first call to reach the model server', () => script.count('interject', 1) >= 1);
    const first = cluster.fake.requests.find((r) => JSON.stringify(r.body).includes('[[tag interject]]'))!;
    expect((await cluster.call(`/v1/sessions/${id}/input`, { json: { text: 'Make it cosy [[tag interject]]' } })).status).toBe(202);
    const events = await cluster.stream(id, (es) => waiting(es) && es.filter((e) => e.type === 'agent_message').length === 2);
    // The first call never answered: its connection was closed by the worker (it was held for seconds by the script).
    expect(first.hungUp).toBe(true);
    const started = events.find((e) => e.type === 'agent_started')!;
    expect(events.filter((e) => e.type === 'agent_message' && e.turn_id === (started as { turn_id: string }).turn_id)).toEqual([]);
    expect(events.filter((e) => e.type === 'usage')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'agent_message').map((e) => (e as { persona: string }).persona)).toEqual(['creative_partner', 'game_designer']);
    expect(events.filter((e) => e.type === 'user_input').map((e) => (e as { text: string }).text)).toEqual(['A lighthouse keeper game [[tag interject]]', 'Make it cosy [[tag interject]]']);
    expect(events.find((e) => e.type === 'agent_started' && e !== started)).toMatchObject({ persona: 'creative_partner', inbox: 'interjection' });
    // Usage from the stored meter totals: the view and !cost count what the usage events count (the aborted call used none).
    const usageEvents = events.filter((e) => e.type === 'usage') as unknown as { prompt_tokens: number; completion_tokens: number }[];
    const tokens = usageEvents.reduce((n, e) => n + e.prompt_tokens + e.completion_tokens, 0);
    expect((await (await cluster.call(`/v1/sessions/${id}`)).json()) as unknown).toMatchObject({ usage: { calls: 2, tokens } });
    const cost = (await (await cluster.call(`/v1/sessions/${id}/input`, { json: { text: '!cost' } })).json()) as { lines: string[] };
    expect(cost.lines.find((l) => l.startsWith('total'))).toMatch(new RegExp(`^total\\s+2 call\\(s\\)\\s+${tokens} tokens`));
    // The SSE messages carry display items on this backend too.
    expect(events.find((e) => e.type === 'transition')).toMatchObject({ items: [{ kind: 'transition', text: expect.stringMatching(/ -> CREATIVE › Creative Partner \(/) }] });
  });

  it("streams a turn's deltas to the reader while the turn runs (pushed by the worker); the stored events carry the whole message", async () => {
    const id = await cluster.create('A slow answer [[tag live]]');
    const events = await cluster.stream(id, (read) => {
      if (read.length > 0) readerConnected();
      return waiting(read);
    });
    const message = events.findIndex((e) => e.type === 'agent_message');
    const deltas = events.slice(0, message).filter((e) => e.type === 'agent_delta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((e) => e.id === undefined && (e as { turn_id: string }).turn_id === (events[message] as { turn_id: string }).turn_id)).toBe(true);
    expect(deltas.map((e) => (e as { text?: string }).text ?? '').join('')).toBe((events[message] as { text: string }).text);
  });

  it('troupe sessions --restate-url (or TROUPE_RESTATE_URL) lists the sessions on Restate with their status now; an unreachable Restate is one line', async () => {
    const id = await cluster.create('Listed from the CLI [[tag listed]]');
    await cluster.waitFor(id, (v) => v.status === 'awaiting_user');
    const listed = await runCli(['sessions', '--restate-url', cluster.server.ingressUrl], cleanEnv());
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+UPDATED\s+KIND\s+BRIEF\s+TURNS\s+STATUS$/);
    expect(listed.stdout.split('\n').find((l) => l.startsWith(id.slice(0, 8)))).toMatch(/ team {2}Listed from the CLI \[\[tag listed\]\]\s+1\s+waiting: respond_to_user$/);
    const byEnv = await runCli(['sessions'], cleanEnv({ TROUPE_RESTATE_URL: cluster.server.ingressUrl }));
    expect(byEnv.stdout).toContain(id.slice(0, 8));
    const down = await runCli(['sessions', '--restate-url', 'http://127.0.0.1:9'], cleanEnv());
    expect([down.code, down.stderr.trim().split('\n')]).toEqual([1, [expect.stringMatching(/the Restate ingress at http:\/\/127\.0\.0\.1:9 is not reachable .* is restate-server running\?$/)]]);
  });

  it('runs from the command line: troupe worker --register joins the deployment, troupe serve --backend restate serves the API', async () => {
    const joined = await cluster.addWorker(['--register', cluster.server.adminUrl, '--advertise', cluster.balancer.url]);
    expect(await joined.child.waitFor(/^registered /)).toMatch(/^registered http:\/\/127\.0\.0\.1:\d+\/ with http:\/\/127\.0\.0\.1:\d+ \(deployment dp_\w+\)$/);
    const serve = Child.start(
      'serve',
      process.execPath,
      ['--import', 'tsx', 'src/cli.tsx', 'serve', '--backend', 'restate', '--restate-url', cluster.server.ingressUrl, '--port', '0', '--team', REPO_ROOT],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      },
    );
    try {
      const url = await serve.waitFor(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(await (await fetch(new URL('/healthz', url))).json()).toEqual({ ok: true, backend: 'restate' });
      const created = await fetch(new URL('/v1/sessions', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ brief: 'From the CLI [[tag cli]]' }) });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      await cluster.waitFor(id, (v) => v.status === 'awaiting_user');
    } finally {
      await serve.kill('SIGTERM');
    }
  });
});

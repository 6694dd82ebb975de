import type { Server } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { serveApp } from '../../src/serve/app.js';
import { SessionHost } from '../../src/serve/host.js';
import { listen } from '../../src/serve/listen.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

let servers: Server[] = [];
afterEach(() => {
  for (const s of servers) s.close();
  servers = [];
});

/** Reads an SSE stream's raw text until it holds `until` (or the stream ends). */
async function readUntil(response: Response, until: string): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(until)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text.slice(0, text.indexOf(until) + until.length);
}

/** A served team whose first persona answers when `release` is called, then asks the user. */
async function served() {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const model = () =>
    new ScriptedModel([
      { hold: held, text: 'The lamp is lit.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }, usage: { promptTokens: 10, completionTokens: 5 } },
      { text: 'The loop is tight.', directive: { transition: 'RESPOND_TO_USER' } },
    ]);
  const host = new SessionHost({ store: new MemoryStore(), team: studio(), teamDir: REPO_ROOT, env: { TROUPE_MODEL: 'test-model' }, maxSessions: 4, model });
  const app = serveApp({ host, token: null, maxBodyBytes: 4096, keepAliveMs: 60_000 });
  const { server, port } = await listen(app.fetch, { hostname: '127.0.0.1', port: 0 });
  servers.push(server);
  return { app, host, base: `http://127.0.0.1:${port}`, release };
}

describe('many readers of one session, over HTTP', () => {
  it('every reader gets the same stream, written to the socket directly, as the in-process stream words it', async () => {
    const { app, host, base, release } = await served();
    const created = await fetch(`${base}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ brief: 'A lighthouse keeper game' }) });
    const { id } = (await created.json()) as { id: string };
    const responses = await Promise.all(Array.from({ length: 40 }, () => fetch(`${base}/v1/sessions/${id}/events`)));
    for (const r of responses) expect(r.headers.get('content-type')).toBe('text/event-stream');
    expect(host.feed(id)!.size).toBe(40);
    release();
    const streams = await Promise.all(responses.map((r) => readUntil(r, 'event: awaiting_user')));
    for (const s of streams) expect(s).toBe(streams[0]);
    expect(streams[0]).toContain('event: agent_delta\ndata: ');
    expect(streams[0]).toMatch(/event: agent_message\ndata: \{[^\n]*"text":"The lamp is lit\."[^\n]*"items":\[\{[^\n]*\}\nid: \d+\n\n/);
    // Read again from the start (the feed keeps the session's newest frames) and in-process (Hono's stream): the same bytes.
    expect(await readUntil(await fetch(`${base}/v1/sessions/${id}/events`), 'event: awaiting_user')).toBe(streams[0]!.replace(/event: agent_delta\n[^\n]*\n\n/g, ''));
    const inProcess = await readUntil(await app.request(`/v1/sessions/${id}/events`), 'event: awaiting_user');
    expect(inProcess).toBe(streams[0]!.replace(/event: agent_delta\n[^\n]*\n\n/g, ''));
    // A reader that leaves is let go of.
    await vi.waitFor(() => expect(host.feed(id)!.size).toBe(0), { timeout: 20_000 });
  });

  it('a reader resuming with Last-Event-ID gets only what came after it', async () => {
    const { base, release } = await served();
    release();
    const created = await fetch(`${base}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ brief: 'A lighthouse keeper game' }) });
    const { id } = (await created.json()) as { id: string };
    const all = await readUntil(await fetch(`${base}/v1/sessions/${id}/events`), 'event: awaiting_user');
    const ids = [...all.matchAll(/\nid: (\d+)\n/g)].map((m) => Number(m[1]));
    const from = ids[Math.floor(ids.length / 2)]!;
    const rest = await readUntil(await fetch(`${base}/v1/sessions/${id}/events`, { headers: { 'Last-Event-ID': String(from) } }), 'event: awaiting_user');
    expect([...rest.matchAll(/\nid: (\d+)\n/g)].map((m) => Number(m[1]))).toEqual(ids.filter((i) => i > from));
  });
});

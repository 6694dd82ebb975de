import type { Hono } from 'hono';
import { executeLine } from '../commands/execute.js';
import { displayNames } from '../report/display-items.js';
import { sessionStatus } from '../report/sessions-table.js';
import { matchId } from '../store/store.js';
import { apiFrame, readBody, refuse } from './api-frame.js';
import { CreateSessionSchema, InputSchema } from './api-schema.js';
import { RequestRefused, type SessionHost } from './host.js';
import { SseClient } from './sse-client.js';
import { storedFrames, type SseFrame } from './sse-frame.js';
import { streamFrames } from './sse-stream.js';
import { sessionView, storedDefinition, storedUsage } from './view.js';

/** How the server is set up: the session host, the token (null: no auth, loopback only), the request size limit. */
export interface ServeAppOptions {
  host: SessionHost;
  token: string | null;
  maxBodyBytes: number;
  /** How long a stream may stay silent before a keep-alive comment goes out. */
  keepAliveMs?: number;
}

/** The HTTP API of `troupe serve` (JSON in and out, SSE for events), the OpenAPI document and the live page. */
export function serveApp(options: ServeAppOptions): Hono {
  const { host } = options;
  const { store, team } = host.options;
  const { api, mount } = apiFrame({ token: options.token, maxBodyBytes: options.maxBodyBytes, health: () => ({ ok: true, sessions: host.running }) });

  // A session running here is found without listing the store (listing reads the whole sessions directory).
  const resolve = async (wanted: string) => (host.has(wanted) ? wanted : matchId(wanted, await store.ids()));

  api.post('/sessions', async (c) => {
    const request = await readBody(c, CreateSessionSchema);
    if (request.team !== undefined && request.team !== team.def.name) throw new RequestRefused(400, `team: this server runs the team "${team.def.name}"`);
    if (request.workflow === undefined && !request.brief) throw new RequestRefused(400, 'brief: a team session needs a brief');
    const session = await host.create({
      ...(request.brief !== undefined ? { brief: request.brief } : {}),
      ...(request.workflow !== undefined ? { workflow: request.workflow } : {}),
      ...(request.input !== undefined ? { input: request.input } : {}),
      ...(request.mode !== undefined ? { mode: request.mode } : {}),
      ...(request.models !== undefined ? { models: request.models } : {}),
    });
    return c.json(sessionView({ session }), 201);
  });

  api.get('/sessions', async (c) => {
    const q = (c.req.query('q') ?? '').toLowerCase();
    const entries = await store.list();
    const items = entries.flatMap((e) =>
      'listing' in e && (q === '' || e.listing.brief.toLowerCase().includes(q) || e.id.startsWith(q))
        ? [{ id: e.id, team: e.listing.team, brief: e.listing.brief, status: sessionStatus({ listing: e.listing, lockedBy: host.has(e.id) ? null : e.lockedBy }), turns: e.listing.turns, updatedAt: e.listing.updatedAt, hosted: host.has(e.id) }]
        : [],
    );
    return c.json({ sessions: items });
  });

  api.get('/sessions/:id', async (c) => {
    const id = await resolve(c.req.param('id'));
    const session = host.get(id);
    if (session) return c.json(sessionView({ session }));
    const read = await store.read(id);
    return c.json(sessionView({ doc: read.doc, lastSeq: read.events.at(-1)?.seq ?? 0, usage: await storedUsage(read, host.meter()) }));
  });

  api.post('/sessions/:id/input', async (c) => {
    const id = await resolve(c.req.param('id'));
    const { text } = await readBody(c, InputSchema);
    const session = await host.open(id);
    if (session.getSnapshot().status === 'ended') throw new RequestRefused(409, `session ${id} has ended; it takes no more input`);
    const outcome = executeLine(text, { session, usage: () => session.usage() });
    if (outcome.kind === 'quit') {
      await host.release(id);
      return c.json({ kind: 'quit' });
    }
    if (outcome.kind === 'later') return c.json({ kind: 'output', title: outcome.title, lines: await outcome.lines });
    if (outcome.kind === 'output') {
      if (outcome.tone === 'error') return refuse(c, 400, outcome.lines.join(' '));
      return c.json({ kind: 'output', title: outcome.title, lines: outcome.lines });
    }
    return c.json({ kind: 'none' }, 202);
  });

  api.get('/sessions/:id/events', async (c) => {
    const id = await resolve(c.req.param('id'));
    const after = Number(c.req.header('Last-Event-ID') ?? c.req.query('after') ?? 0) || 0;
    const client = new SseClient(after);
    const feed = host.feed(id);
    let stored: SseFrame[] = [];
    // A hosted session's feed holds its newest events, worded and serialised once for every reader; a reader
    // resuming before them gets the events the session keeps in memory, or reads the store when it must go
    // further back (attached first, so nothing falls between; duplicates are skipped by seq).
    const detach = feed?.attach(client, after);
    const replayed = feed && !feed.covers(after) ? feed.replay(after) : null;
    if (replayed) stored = replayed;
    else if (!feed?.covers(after)) {
      const read = await store.read(id);
      const live = host.get(id);
      stored = storedFrames(read.events, after, displayNames(live?.def ?? storedDefinition(read.doc, team)));
    }
    return streamFrames(c, { stored, client, live: feed !== undefined, keepAliveMs: options.keepAliveMs ?? 15_000, done: () => detach?.() });
  });

  return mount();
}

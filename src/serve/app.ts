import { processRedactor, redactDeep } from '../llm/redact.js';
import type { Hono } from 'hono';
import { executeLine } from '../commands/execute.js';
import { parseLine } from '../commands/parse.js';
import { displayNames } from '../report/display-items.js';
import { statusFactsOf, statusWords } from '../report/status-words.js';
import { matchId } from '../store/store.js';
import { apiFrame, readBody, refuse, resumeAfter } from './api-frame.js';
import { CreateSessionSchema, InputSchema } from './api-schema.js';
import { consoleRoutes } from './console-routes.js';
import { RequestRefused, type SessionHost } from './host.js';
import { sessionRoutes } from './session-routes.js';
import { SseClient } from './sse-client.js';
import { RETRY_FRAME, storedFrames, type SseFrame } from './sse-frame.js';
import { streamFrames } from './sse-stream.js';
import { reopenedMachine, sessionView, storedDefinition, storedSession, storedUsage } from './view.js';

/** How the server is set up: the session host, the token (null: no auth, loopback only), the request size limit. */
export interface ServeAppOptions {
  host: SessionHost;
  token: string | null;
  maxBodyBytes: number;
  /** How long a stream may stay silent before a keep-alive comment goes out. */
  keepAliveMs?: number;
  /** Host names besides the loopback ones a server without a token answers to (TROUPE_SERVE_ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
}

/** The HTTP API of `troupe serve` (JSON in and out, SSE for events), the OpenAPI document and the console. */
export function serveApp(options: ServeAppOptions): Hono {
  const { host } = options;
  const { store, team } = host.options;
  const { api, mount } = apiFrame({
    token: options.token,
    maxBodyBytes: options.maxBodyBytes,
    health: () => ({ ok: true, sessions: host.running }),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    page: consoleRoutes,
  });

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

  // The lock of a session this server is letting go of is its own: not "open" in another process.
  const openElsewhere = (lockedBy: number | null) => (lockedBy === process.pid ? null : lockedBy);

  // A session running here is described by its live status, as GET /v1/sessions/:id describes it; a stored one by its checkpoint.
  const listItem = (id: string, listing: import('../store/listing.js').SessionListing, lockedBy: number | null) => {
    const live = host.statusOf(id);
    const status = live ?? listing.status;
    const statusText = live === null ? statusWords(listing, openElsewhere(lockedBy)) : statusWords(statusFactsOf(host.get(id)!.getSnapshot()), 'live');
    const turns = live === null ? listing.turns : host.get(id)!.getSnapshot().turn;
    // Redacted as the session view is: a stored brief may hold a key this server never wrote (an older troupe, other secrets).
    return redactDeep(
      { id, team: listing.team, workflow: listing.workflow ?? null, brief: listing.brief, status, statusText, turns, updatedAt: listing.updatedAt, hosted: live !== null },
      processRedactor(),
    );
  };

  api.get('/sessions', async (c) => {
    const q = (c.req.query('q') ?? '').toLowerCase();
    // The sessions running here are shown as they run (listItem): their journals are not folded for it.
    const entries = await store.list({ hosted: (id) => host.has(id) });
    // The search reads the brief as it is shown (redacted): a query must not find out a key it cannot see.
    const items = entries.flatMap((e) => ('listing' in e ? [listItem(e.id, e.listing, e.lockedBy)] : [])).filter((item) => q === '' || item.brief.toLowerCase().includes(q) || item.id.startsWith(q));
    return c.json({ sessions: items });
  });

  api.get('/sessions/:id', async (c) => {
    const id = await resolve(c.req.param('id'));
    const session = host.get(id);
    if (session) return c.json(sessionView({ session }));
    const read = await store.read(id);
    // The checkpoint is a cache: the journal lines after it are folded in, so the view is the session's last state.
    const snapshot = storedSession(read, team).state;
    const holder = openElsewhere(store.lockedBy?.(id) ?? null);
    return c.json(sessionView({ doc: read.doc, lastSeq: read.events.at(-1)?.seq ?? 0, usage: await storedUsage(read, host.meter()), snapshot, holder }));
  });

  api.post('/sessions/:id/input', async (c) => {
    const id = await resolve(c.req.param('id'));
    const { text } = await readBody(c, InputSchema);
    if (!host.has(id)) {
      // A line the session would refuse is refused before it is reopened: a refusal leaves no trace and takes no slot.
      const read = await store.read(id);
      if (read.events.some((e) => e.type === 'session_ended')) throw new RequestRefused(409, `session ${id} has ended; it takes no more input`);
      const parsed = parseLine(text, reopenedMachine(read.doc, team));
      if (parsed.kind === 'error') throw new RequestRefused(400, parsed.message);
      if (parsed.kind === 'quit') return c.json({ kind: 'quit' });
      if (parsed.kind === 'empty') return c.json({ kind: 'none' }, 202);
    }
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
    const after = resumeAfter(c);
    const client = new SseClient(after);
    // The session's feed holds its newest events, worded and serialised once for every reader; a reader
    // resuming before them gets the events the session keeps in memory, or reads the store when it must go
    // further back (attached first, so nothing falls between; duplicates are skipped by seq). A reader of a
    // session not running here stays attached: its feed follows the session once it is opened again.
    const feed = host.feed(id);
    const detach = feed.attach(client, after);
    let stored: SseFrame[] = [];
    let over = host.statusOf(id) === 'ended';
    const replayed = feed.covers(after) ? null : feed.replayJoined(after);
    if (replayed) stored = replayed;
    else if (!feed.covers(after)) {
      const read = await store.read(id).catch((error: unknown) => {
        detach();
        throw error;
      });
      const live = host.get(id);
      stored = storedFrames(read.events, after, displayNames(live?.def ?? storedDefinition(read, team)));
      if (!live) over = read.events.some((e) => e.type === 'session_ended');
    }
    // A session that is over with nothing after `after` answers 204: an EventSource stops reconnecting.
    if (over && stored.length === 0) {
      detach();
      client.close();
      return c.body(null, 204);
    }
    return streamFrames(c, { stored: [RETRY_FRAME, ...stored], client, live: !over, keepAliveMs: options.keepAliveMs ?? 15_000, done: detach });
  });

  sessionRoutes(api, host, resolve);

  return mount();
}

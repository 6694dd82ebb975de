import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { executeLine } from '../commands/execute.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { isLiveOnly } from '../kernel/session-kernel.js';
import { displayFold, displayNames } from '../report/display-items.js';
import { redactDeep } from '../llm/redact.js';
import { sessionStatus } from '../report/sessions-table.js';
import { matchId } from '../store/store.js';
import { apiFrame, readBody, refuse } from './api-frame.js';
import { CreateSessionSchema, InputSchema } from './api-schema.js';
import { RequestRefused, type SessionHost } from './host.js';
import { SseClient } from './sse-client.js';
import { sseMessage } from './sse-message.js';
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
    const outcome = executeLine(text, { session, usage: () => session.usage(), warming: () => session.warming() });
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
    const client = new SseClient();
    // Subscribe before reading the stored log, so nothing falls between the two; duplicates are skipped by seq.
    const live = host.get(id);
    const unsubscribe = live?.subscribe((e) => client.push(e));
    const read = await store.read(id);
    // Each event goes out with its display items; the fold reads the whole log, so a resumed stream words its first items right.
    const items = displayFold(displayNames(live?.def ?? storedDefinition(read.doc, team)));
    for (const e of read.events) if (e.seq <= after) items(e);
    const stored = read.events.filter((e) => e.seq > after);
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => client.close());
      let sent = after;
      const send = async (e: TroupeEvent) => {
        // Live-only events (deltas, predictions) carry the last stored seq: sent live, never as a resume point.
        const liveOnly = isLiveOnly(e.type);
        if (!liveOnly && e.seq <= sent) return;
        const shown = redactDeep(e);
        await stream.writeSSE({ ...sseMessage(shown, items(shown)), ...(!liveOnly ? { id: String(e.seq) } : {}) });
        if (!liveOnly) sent = e.seq;
      };
      try {
        for (const e of stored) await send(e);
        if (!live) return;
        const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n'), options.keepAliveMs ?? 15_000);
        try {
          for (let batch = await client.next(); batch.length > 0; batch = await client.next()) for (const e of batch) await send(e);
        } finally {
          clearInterval(keepAlive);
        }
        if (client.dropped) await stream.writeSSE({ event: 'dropped', data: JSON.stringify({ error: 'this reader fell too far behind and was dropped; reconnect with Last-Event-ID' }) });
      } finally {
        unsubscribe?.();
      }
    });
  });

  return mount();
}

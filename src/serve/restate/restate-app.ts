import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { MachineDefinition } from '../../engine/definition.js';
import { displayFold, displayNames, plainNames } from '../../report/display-items.js';
import { matchId } from '../../store/store.js';
import { consoleRoutes } from '../console-routes.js';
import { apiFrame, readBody } from '../api-frame.js';
import { CreateSessionSchema, InputSchema } from '../api-schema.js';
import { RequestRefused } from '../host.js';
import { sseMessage } from '../sse-message.js';
import { RestateUnavailable, type RestateSessions } from './ingress.js';

/** How the Restate-backed API is set up: the ingress client, the team the workers run, auth, limits, polling. */
export interface RestateAppOptions {
  sessions: RestateSessions;
  /** The team name the workers run (requests naming another are refused). */
  team: string;
  /** The team's definition: event streams name personas and states by it (ids as stored without it). */
  def?: MachineDefinition;
  token: string | null;
  maxBodyBytes: number;
  /** How often an event stream asks the session for new events. */
  pollMs?: number;
  keepAliveMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;


/**
 * `troupe serve --backend restate`: the same routes and JSON as the embedded backend, each request a call to
 * the session's virtual object through the Restate ingress. Event streams poll the session's `events` handler.
 */
export function restateApp(options: RestateAppOptions): Hono {
  const { sessions } = options;
  const pollMs = options.pollMs ?? 200;
  const { api, mount } = apiFrame({
    token: options.token,
    maxBodyBytes: options.maxBodyBytes,
    health: () => ({ ok: true, backend: 'restate' }),
    statusOf: (error) => (error instanceof RestateUnavailable ? error.status : null),
    page: consoleRoutes,
  });
  const resolve = async (wanted: string) => (FULL_ID.test(wanted) ? wanted : matchId(wanted, (await sessions.list()).map((e) => e.id)));

  api.post('/sessions', async (c) => {
    const request = await readBody(c, CreateSessionSchema);
    if (request.team !== undefined && request.team !== options.team) throw new RequestRefused(400, `team: this server runs the team "${options.team}"`);
    if (request.workflow !== undefined) throw new RequestRefused(400, 'workflow: the Restate backend runs teams; run workflows on the embedded backend');
    if (!request.brief) throw new RequestRefused(400, 'brief: a team session needs a brief');
    const view = await sessions.start(randomUUID(), { brief: request.brief, ...(request.mode ? { mode: request.mode } : {}) });
    return c.json(view, 201);
  });

  api.get('/sessions', async (c) => {
    const q = (c.req.query('q') ?? '').toLowerCase();
    const entries = (await sessions.list()).filter((e) => q === '' || e.brief.toLowerCase().includes(q) || e.id.startsWith(q));
    const items = [];
    // A few at a time: each line is one call to its session.
    for (let i = 0; i < entries.length; i += 16) items.push(...(await Promise.all(entries.slice(i, i + 16).map((e) => sessions.listing(e.id)))));
    return c.json({ sessions: items });
  });

  api.get('/sessions/:id', async (c) => c.json(await sessions.snapshot(await resolve(c.req.param('id')))));

  api.post('/sessions/:id/input', async (c) => {
    const id = await resolve(c.req.param('id'));
    const { text } = await readBody(c, InputSchema);
    const outcome = await sessions.input(id, text);
    return c.json(outcome, outcome.kind === 'none' ? 202 : 200);
  });

  api.get('/sessions/:id/events', async (c) => {
    const id = await resolve(c.req.param('id'));
    const after = Number(c.req.header('Last-Event-ID') ?? c.req.query('after') ?? 0) || 0;
    // Read once before the stream opens, so an unknown session is a 404 and not an empty stream.
    let page = await sessions.events(id, after);
    const items = displayFold(options.def ? displayNames(options.def) : plainNames(options.team));
    return streamSSE(c, async (stream) => {
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      let sent = after;
      let quiet = 0;
      while (open) {
        for (const e of page.events) {
          await stream.writeSSE({ ...sseMessage(e, items(e)), id: String(e.seq) });
          sent = e.seq;
        }
        if (page.status === 'ended' && sent >= page.lastSeq) break;
        if (sent >= page.lastSeq) {
          await sleep(pollMs);
          quiet += pollMs;
          if (quiet >= (options.keepAliveMs ?? 15_000)) {
            quiet = 0;
            await stream.write(': keep-alive\n\n');
          }
        } else quiet = 0;
        try {
          page = await sessions.events(id, sent);
        } catch (error) {
          // Restate restarting: the stream stays open and picks up where it was once Restate answers again.
          if (!(error instanceof RestateUnavailable)) throw error;
          page = { events: [], lastSeq: sent, status: page.status };
        }
      }
    });
  });

  return mount();
}

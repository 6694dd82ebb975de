import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import type { MachineDefinition } from '../../engine/definition.js';
import type { TroupeEvent } from '../../engine/event-map.js';
import { isLiveOnly } from '../../kernel/session-kernel.js';
import { redactDeep } from '../../llm/redact.js';
import { displayFold, displayNames, plainNames } from '../../report/display-items.js';
import { graphModel } from '../../report/graph-model.js';
import { MAX_NESTING, tooDeep } from '../../store/nesting.js';
import { matchId } from '../../store/store.js';
import { compileWorkflow } from '../../workflow/run/compile.js';
import { apiFrame, readBody, refuse, resumeAfter } from '../api-frame.js';
import { consoleRoutes } from '../console-routes.js';
import { CreateSessionSchema, InputSchema } from '../api-schema.js';
import { RequestRefused, type SessionHost } from '../host.js';
import { serverCatalog } from '../session-routes.js';
import { EventQueue } from './event-queue.js';
import { sseMessage } from '../sse-message.js';
import { RestateUnavailable, type RestateSessions } from './ingress.js';
import type { LiveHub } from './live-hub.js';
import type { EventsPage } from './records.js';

/** How the Restate-backed API is set up: the ingress client, the team the workers run, auth, limits, polling, live deltas. */
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
  /** Where workers push streaming deltas (absent: readers see whole messages only). */
  live?: LiveHub;
  /** The workflows the console offers (the workers load them by name). */
  workflows?: SessionHost['options']['workflows'];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** How long creating a session waits for its first step, so the answer shows it started (as the embedded backend's does). */
const START_WAIT_MS = 3_000;
/** The largest push of deltas a worker may send (a few milliseconds of one turn's pieces are far smaller). */
const LIVE_MAX_BYTES = 1024 * 1024;

/**
 * `troupe serve --backend restate`: the same routes and JSON as the embedded backend, each request a call to
 * the session's virtual object through the Restate ingress. Event streams poll the session's `events` handler,
 * and pass on the streaming deltas workers push to `POST /live` while a turn runs.
 */
export function restateApp(options: RestateAppOptions): Hono {
  const { sessions, live } = options;
  const pollMs = options.pollMs ?? 200;
  const { app, api, mount } = apiFrame({
    token: options.token,
    maxBodyBytes: options.maxBodyBytes,
    health: () => ({ ok: true, backend: 'restate' }),
    statusOf: (error) => (error instanceof RestateUnavailable ? error.status : null),
    page: consoleRoutes,
  });
  const resolve = async (wanted: string) =>
    FULL_ID.test(wanted)
      ? wanted
      : matchId(
          wanted,
          (await sessions.list()).map((e) => e.id),
        );

  // Workers push deltas here with this process's token (not the API's: workers are not API clients).
  app.post('/live', bodyLimit({ maxSize: LIVE_MAX_BYTES, onError: (c) => refuse(c, 413, `live: a push is at most ${LIVE_MAX_BYTES} bytes`) }), async (c) => {
    if (!live?.allows(c.req.header('authorization'))) return refuse(c, 401, "live: a worker push needs this process's live token");
    const body = (await c.req.json().catch(() => null)) as { events?: unknown } | null;
    // Readers' streams redact and serialise each event recursively: a push nested past that ended them.
    if (tooDeep(body)) return refuse(c, 400, `live: a push nests deeper than ${MAX_NESTING} levels — a worker pushes flat deltas`);
    return c.json({ delivered: live.deliver(body?.events) });
  });

  api.post('/sessions', async (c) => {
    const request = await readBody(c, CreateSessionSchema);
    if (request.team !== undefined && request.team !== options.team) throw new RequestRefused(400, `team: this server runs the team "${options.team}"`);
    if (request.workflow === undefined && !request.brief) throw new RequestRefused(400, 'brief: a team session needs a brief');
    const id = randomUUID();
    const target = live?.target();
    let view = await sessions.create(id, { ...request, ...(target ? { live: target } : {}) });
    for (let waited = 0; view.status === 'idle' && waited < START_WAIT_MS; waited += 10) {
      await sleep(10);
      view = await sessions.snapshot(id);
    }
    return c.json(view, 201);
  });

  api.get('/sessions', async (c) => {
    const q = (c.req.query('q') ?? '').toLowerCase();
    // Redacted as the session view and the embedded list are; the search reads the brief as shown, so a query
    // cannot find out a key it cannot see.
    const lines = await sessions.listings((e) => q === '' || redactDeep(e.brief).toLowerCase().includes(q) || e.id.startsWith(q));
    return c.json({ sessions: lines.map(({ kind: _kind, ...line }) => redactDeep(line)) });
  });

  api.get('/sessions/:id', async (c) => c.json(await sessions.snapshot(await resolve(c.req.param('id')))));

  // What the console reads to start and draw sessions (the timeline, forks and deliverables read the embedded store: not here).
  const { def } = options;
  if (def) {
    let catalog: Record<string, unknown> | null = null;
    api.get('/catalog', (c) => {
      catalog ??= serverCatalog(def, options.workflows);
      return c.json(catalog);
    });
    api.get('/sessions/:id/graph', async (c) => {
      const plan = await sessions.plan(await resolve(c.req.param('id')));
      return c.json(graphModel(plan ? compileWorkflow(plan) : def));
    });
  }
  const localOnly = (c: Context) => refuse(c, 404, 'the timeline, forks and deliverables read the session files of troupe serve (the embedded backend); sessions on Restate have none here');
  for (const path of ['/sessions/:id/timeline', '/sessions/:id/steps/:step', '/sessions/:id/deliverables']) api.get(path, localOnly);
  api.post('/sessions/:id/fork', localOnly);

  api.post('/sessions/:id/input', async (c) => {
    const id = await resolve(c.req.param('id'));
    const { text } = await readBody(c, InputSchema);
    const outcome = await sessions.line(id, text, live?.target());
    return c.json(outcome, outcome.kind === 'none' ? 202 : 200);
  });

  api.get('/sessions/:id/events', async (c) => {
    const id = await resolve(c.req.param('id'));
    const after = resumeAfter(c);
    // Listen for deltas before the first read, so none of a turn that is running falls between the two.
    const deltas = new EventQueue();
    const unsubscribe = live?.subscribe(id, (e) => deltas.push(e));
    // Read once before the stream opens, so an unknown session is a 404 and not an empty stream.
    let page: EventsPage;
    try {
      page = await sessions.events(id, after);
    } catch (error) {
      unsubscribe?.();
      throw error;
    }
    // Agents and states are named by the session's definition: a workflow's, compiled from its plan, else the team's.
    const plan = await sessions.plan(id).catch((error: unknown) => {
      unsubscribe?.();
      throw error;
    });
    const def = plan ? compileWorkflow(plan) : options.def;
    const items = displayFold(def ? displayNames(def) : plainNames(options.team));
    return streamSSE(c, async (stream) => {
      let open = true;
      stream.onAbort(() => {
        open = false;
        deltas.close();
      });
      let sent = after;
      let quiet = 0;
      // As the embedded stream: each event with its display items, secrets a model echoed redacted; live-only
      // events (deltas, predictions) carry no id (they are not a resume point).
      const write = (e: TroupeEvent) => {
        const shown = redactDeep(e);
        return stream.writeSSE({ ...sseMessage(shown, items(shown)), ...(isLiveOnly(e.type) ? {} : { id: String(e.seq) }) });
      };
      try {
        while (open) {
          // Live events that came while the page was read go in their place among its stored events: each carries
          // the seq of the last stored event before it (the worker waits for its push before it writes the next),
          // so a prediction goes out before the end of the turn it belongs to, and after the start of the session.
          const live = deltas.take();
          let next = 0;
          for (const e of page.events) {
            while (next < live.length && live[next]!.seq < e.seq) await write(live[next++]!);
            await write(e);
            sent = e.seq;
          }
          while (next < live.length) await write(live[next++]!);
          if (page.status === 'ended' && sent >= page.lastSeq) break;
          if (sent >= page.lastSeq) {
            // Waiting for the next poll, deltas of the turn in progress go out as they come.
            const waited = await untilDeltas(deltas, pollMs, write);
            quiet += waited;
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
      } finally {
        unsubscribe?.();
      }
    });
  });

  return mount();
}

/** Sends the deltas that arrive within `ms`; resolves after `ms` with the time waited. */
async function untilDeltas(deltas: EventQueue, ms: number, write: (e: TroupeEvent) => Promise<void>): Promise<number> {
  let done = false;
  const timer = setTimeout(() => {
    done = true;
    deltas.push(NOTHING);
  }, ms);
  try {
    while (!done) {
      const batch = await deltas.next();
      if (batch.length === 0) break;
      for (const e of batch) if (e !== NOTHING) await write(e);
    }
  } finally {
    clearTimeout(timer);
  }
  return ms;
}

// Wakes the delta queue when the poll interval is over.
const NOTHING = { type: 'note', text: '', session_id: '', seq: 0, at: 0 } as unknown as TroupeEvent;

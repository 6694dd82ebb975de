import * as restate from '@restatedev/restate-sdk';
import { applyLine } from './apply-line.js';
import { createSession } from './create-session.js';
import { existing, parse, refuse, restateView, restateStatusWords } from './handler-common.js';
import { checkLine } from './line-handler.js';
import { RESTATE_NAMES } from './names.js';
import type { WorkerRuntime } from './object-session.js';
import { EventsRequestSchema, type EventsPage, type LineAnswer, type ListingLine } from './records.js';
import { KEYS, readEvents, readHead } from './session-store.js';
import type { WorkflowPlan } from '../../workflow/run/plan.js';

// Every handler reads only the keys it needs: without lazy state each invocation would carry the whole event log.
const LAZY = { enableLazyState: true };

/**
 * The `troupe_session` virtual object, keyed by session id. `create` stores a new session; `apply` is the
 * one handler that runs it: it opens the session (the kernel, with Restate's ports), applies a line, and
 * drives the session's work — every model call, tool run and evaluation a `ctx.run` step — until the
 * session waits for the user or ends, writing events as it goes. Lines arrive through the shared `line`:
 * inspections are answered there, from the stored state; a line that changes the session is sent to `apply`,
 * and when it would cut off work in progress (an interjection, `!handoff`, `!quit`) the invocation driving
 * the session is cancelled first, which aborts its calls in flight. `snapshot`, `listing` and `events` read.
 */
export function sessionObject(rt: WorkerRuntime) {
  return restate.object({
    name: RESTATE_NAMES.session,
    options: {
      retryPolicy: { initialInterval: 100, maxInterval: 2_000, exponentiationFactor: 2 },
      // A model call is one `ctx.run`: the invocation sends nothing while it runs, and must not be taken for stalled.
      inactivityTimeout: { minutes: 15 },
    },
    handlers: {
      /** Stores a new session (a team on a brief, or a named workflow on an input) and starts it; 409 when the key holds one. */
      create: restate.handlers.object.exclusive(LAZY, (ctx: restate.ObjectContext, raw: unknown) => createSession(ctx, rt, raw)),

      /** Applies a line (none: only continues the session) and runs the session until it waits or ends. */
      apply: restate.handlers.object.exclusive(LAZY, (ctx: restate.ObjectContext, raw: unknown) => applyLine(ctx, rt, raw)),

      /** A line exactly as typed in the terminal UI: inspections answered here, anything else sent to `apply`. */
      line: restate.handlers.object.shared(LAZY, (ctx: restate.ObjectSharedContext, raw: unknown): Promise<LineAnswer> => checkLine(ctx, rt, raw)),
      /** The session as the API shows it (read-only, runs beside the session's invocations). */
      snapshot: restate.handlers.object.shared(LAZY, async (ctx: restate.ObjectSharedContext) => {
        const meta = await existing(ctx);
        const head = await readHead(ctx);
        if (!head) throw refuse(404, `no session "${ctx.key}"`);
        return restateView(meta, head);
      }),

      /** A workflow session's plan (null for a team's): the serve process names its agents and states by it. */
      plan: restate.handlers.object.shared(LAZY, async (ctx: restate.ObjectSharedContext): Promise<WorkflowPlan | null> => {
        await existing(ctx);
        return ctx.get<WorkflowPlan>(KEYS.plan);
      }),

      /** A line of the session list: the status in words (as `troupe sessions` puts it), turns, last change. */
      listing: restate.handlers.object.shared(LAZY, async (ctx: restate.ObjectSharedContext): Promise<ListingLine> => {
        const meta = await existing(ctx);
        const head = await readHead(ctx);
        if (!head) throw refuse(404, `no session "${ctx.key}"`);
        const s = head.state;
        return {
          id: s.id,
          team: meta.team,
          kind: meta.kind,
          workflow: meta.workflow,
          brief: s.brief,
          status: s.status,
          statusText: restateStatusWords(s),
          turns: s.turn,
          updatedAt: head.updatedAt,
          hosted: s.status !== 'ended',
        };
      }),

      /** The events after `after` (oldest first, at most `limit`), the last sequence number and the status. */
      events: restate.handlers.object.shared(LAZY, async (ctx: restate.ObjectSharedContext, raw: unknown): Promise<EventsPage> => {
        const { after, limit = 500 } = parse(EventsRequestSchema, raw);
        await existing(ctx);
        const head = await readHead(ctx);
        if (!head) throw refuse(404, `no session "${ctx.key}"`);
        const last = Math.min(head.lastSeq, after + limit);
        return { events: await readEvents(ctx, after, last), lastSeq: head.lastSeq, status: head.state.status };
      }),
    },
  });
}

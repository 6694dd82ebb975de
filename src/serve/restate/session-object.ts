import * as restate from '@restatedev/restate-sdk';
import type { z } from 'zod';
import { executeLine } from '../../commands/execute.js';
import { NO_USAGE } from '../../commands/usage-meter.js';
import { event } from '../../engine/event-map.js';
import { initialState } from '../../engine/step.js';
import { sizeProblem } from '../../llm/limits.js';
import { resumeNote } from '../../session/resume-note.js';
import { teamKind, workflowKind } from '../../session/session-kind.js';
import { checkId } from '../../store/store.js';
import type { WorkflowPlan } from '../../workflow/run/plan.js';
import { viewOf } from '../view.js';
import { lineMemory, LineCheck, lineUsage } from './line-check.js';
import { INDEX_KEY, RESTATE_NAMES } from './names.js';
import { kindOf, openObjectSession, type WorkerRuntime } from './object-session.js';
import {
  ApplyRequestSchema, CreateRequestSchema, EventsRequestSchema, headState, LineRequestSchema,
  type ApplyRequest, type EventsPage, type IndexEntry, type LineAnswer, type ListingLine, type SessionCore, type SessionHead, type SessionMeta,
} from './records.js';
import { KEYS, readCore, readEvents, readHead, readMeta, writeCore } from './session-store.js';

// Every handler reads only the keys it needs: without lazy state each invocation would carry the whole event log.
const LAZY = { enableLazyState: true };

const refuse = (status: 400 | 404 | 409, message: string) => new restate.TerminalError(message, { errorCode: status });

function parse<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw refuse(400, `${issue.path.map(String).join('.') || 'body'}: ${issue.message}`);
}

async function existing(ctx: restate.ObjectSharedContext): Promise<SessionMeta> {
  const meta = await readMeta(ctx);
  if (!meta) throw refuse(404, `no session "${ctx.key}"`);
  return meta;
}

function statusWords(s: SessionHead['state']): string {
  if (s.status === 'awaiting_user') return `waiting: ${s.awaiting?.code ?? 'user'}`;
  if (s.status === 'ended') return `ended: ${s.endReason ?? ''}`;
  return s.status === 'idle' ? 'not started' : 'running';
}

/** The API's view of a session on Restate: live on the cluster until it ends. */
const restateView = (meta: SessionMeta, head: SessionHead) => viewOf(head.state, { kind: meta.kind, hosted: head.state.status !== 'ended', lastEventSeq: head.lastSeq });

/** Sends `apply` to the session itself (one-way: it runs after the invocation in progress, if any). */
function sendApply(ctx: restate.Context & { key: string }, request: ApplyRequest): void {
  ctx.genericSend({ service: RESTATE_NAMES.session, method: 'apply', key: ctx.key, parameter: request, inputSerde: restate.serde.json });
}

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
      create: restate.handlers.object.exclusive(LAZY, async (ctx: restate.ObjectContext, raw: unknown) => {
        const request = parse(CreateRequestSchema, raw);
        try {
          checkId(ctx.key);
        } catch (error) {
          throw refuse(400, (error as Error).message);
        }
        if (await readMeta(ctx)) throw refuse(409, `session ${ctx.key} already exists`);
        let plan: WorkflowPlan | null = null;
        if (request.workflow !== undefined) {
          if (!rt.workflows) throw refuse(400, 'workflow: these workers run no workflows');
          try {
            plan = rt.workflows.load(request.workflow);
          } catch (error) {
            throw refuse(400, `workflow: ${(error as Error).message.split('\n')[0]}`);
          }
        } else if (!request.brief) throw refuse(400, 'brief: a team session needs a brief');
        const brief = request.brief ?? request.input ?? '';
        const problem = sizeProblem('brief', brief);
        if (problem) throw refuse(400, `brief: ${problem}`);
        const tiers = request.models ? { tiers: request.models } : {};
        const kind = plan ? workflowKind(plan, rt.team, { env: rt.env, ...tiers }) : teamKind(rt.team, { env: rt.env, ...tiers });
        const at = await ctx.date.now();
        const createdAt = new Date(at).toISOString();
        const meta: SessionMeta = { version: 2, id: ctx.key, team: rt.team.def.name, kind: plan ? 'workflow' : 'team', workflow: plan?.name ?? null, model: rt.model.label, ...(request.models ? { tiers: request.models } : {}), createdAt };
        const state = initialState(kind.def, { id: ctx.key, ...(request.mode ? { mode: request.mode } : {}) });
        const core: SessionCore = { state, brief, lastSeq: 0, memory: null, usage: null, demo: null, detached: false, live: request.live ?? null };
        const head: SessionHead = { lastSeq: 0, updatedAt: createdAt, state: headState(state) };
        ctx.set(KEYS.meta, meta);
        if (plan) ctx.set(KEYS.plan, plan);
        writeCore(ctx, core, { withState: true });
        ctx.set(KEYS.head, head);
        const entry: IndexEntry = { id: ctx.key, brief, team: rt.team.def.name, createdAt };
        ctx.genericSend({ service: RESTATE_NAMES.index, method: 'add', key: INDEX_KEY, parameter: entry, inputSerde: restate.serde.json });
        sendApply(ctx, { at });
        return restateView(meta, head);
      }),

      /** Applies a line (none: only continues the session) and runs the session until it waits or ends. */
      apply: restate.handlers.object.exclusive(LAZY, async (ctx: restate.ObjectContext, raw: unknown) => {
        const request = parse(ApplyRequestSchema, raw);
        const meta = await readMeta(ctx);
        const core = await readCore(ctx);
        if (!meta || !core) throw refuse(404, `no session "${ctx.key}"`);
        if (request.live !== undefined) core.live = request.live;
        if (core.state.status === 'ended' && request.text === undefined) return;
        const o = await openObjectSession(ctx, rt, meta, core, request.at);
        let detached = false;
        o.session.subscribe((e) => {
          if (e.type === 'session_detached') detached = true;
        });
        // A session let go of (`!quit`) is resumed as the embedded backend reopens one: noted, its turn in flight re-run.
        if (core.detached) {
          o.publish(event('note', { text: resumeNote(o.session.def, o.session.getSnapshot()) }));
          o.session.resume();
        }
        if (request.text !== undefined) executeLine(request.text, { session: o.session, usage: () => NO_USAGE });
        // What a cancelled invocation left in flight (and a new session's start) goes on, unless the line let go of it.
        if (!detached) o.session.resume();
        // From here a newer line may cancel this invocation (the only thing awaited from now on is the steps' race).
        ctx.set(KEYS.running, ctx.request().id);
        const end = await o.steps.drive(() => o.journal.flush());
        if (end === 'cancelled') rt.log(`session ${ctx.key}: invocation cancelled by a new input; its calls in flight were aborted`);
        // Calls in flight at a cancellation are aborted and never applied: the next apply re-runs what is still wanted.
        o.effects.abortAll();
        o.steps.close();
        o.journal.flush();
        await o.journal.close();
        writeCore(ctx, {
          state: o.journal.state,
          brief: core.brief,
          lastSeq: o.sources.lastSeq(),
          memory: o.sources.memory(),
          usage: o.sources.usage(),
          demo: o.demo?.spoken ?? null,
          detached,
          live: core.live,
        }, { withState: false });
        ctx.clear(KEYS.running);
        await o.close();
      }),

      /** A line exactly as typed in the terminal UI: inspections answered here, anything else sent to `apply`. */
      line: restate.handlers.object.shared(LAZY, async (ctx: restate.ObjectSharedContext, raw: unknown): Promise<LineAnswer> => {
        const { text, live } = parse(LineRequestSchema, raw);
        const meta = await existing(ctx);
        const core = await readCore(ctx);
        if (!core) throw refuse(404, `no session "${ctx.key}"`);
        if (core.state.status === 'ended') throw refuse(409, `session ${ctx.key} has ended; it takes no more input`);
        const kind = await kindOf(ctx, rt, meta);
        const check = new LineCheck(kind.def, core.state, meta.model, () => readEvents(ctx, 0, core.lastSeq));
        const outcome = executeLine(text, { session: check, usage: () => lineUsage(core.usage), memory: lineMemory(core.memory, rt.team.loaded.team, kind.def), free: rt.model.free === true });
        if (outcome.kind === 'output' && outcome.tone === 'error') throw refuse(400, outcome.lines.join(' '));
        if (outcome.kind === 'switch') throw refuse(400, 'workflows start with POST /v1/sessions {"workflow": …}');
        if (check.inputs.length > 0) {
          const running = await ctx.get<string>(KEYS.running);
          if (running && check.cutsOff()) ctx.invocation(running as restate.InvocationId).cancel();
          sendApply(ctx, { text, at: await ctx.date.now(), ...(live ? { live } : {}) });
        }
        if (outcome.kind === 'quit') return { kind: 'quit' };
        if (outcome.kind === 'later') {
          const lines = outcome.title === 'sessions' ? ['sessions on Restate are listed by GET /v1/sessions and troupe sessions --restate-url'] : await outcome.lines;
          return { kind: 'output', title: outcome.title, lines };
        }
        if (outcome.kind === 'output') return { kind: 'output', title: outcome.title, lines: outcome.lines };
        return { kind: 'none' };
      }),

      /** The session as the API shows it (read-only, runs beside the session's invocations). */
      snapshot: restate.handlers.object.shared(LAZY, async (ctx: restate.ObjectSharedContext) => {
        const meta = await existing(ctx);
        const head = await readHead(ctx);
        if (!head) throw refuse(404, `no session "${ctx.key}"`);
        return restateView(meta, head);
      }),

      /** A line of the session list: the status in words (as `troupe sessions` puts it), turns, last change. */
      listing: restate.handlers.object.shared(LAZY, async (ctx: restate.ObjectSharedContext): Promise<ListingLine> => {
        const meta = await existing(ctx);
        const head = await readHead(ctx);
        if (!head) throw refuse(404, `no session "${ctx.key}"`);
        const s = head.state;
        return { id: s.id, team: meta.team, kind: meta.kind, brief: s.brief, status: statusWords(s), turns: s.turn, updatedAt: head.updatedAt, hosted: s.status !== 'ended' };
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

import * as restate from '@restatedev/restate-sdk';
import type { z } from 'zod';
import { executeLine } from '../../commands/execute.js';
import type { TroupeEvent } from '../../engine/event-map.js';
import type { SessionState } from '../../engine/session.js';
import { initialState } from '../../engine/step.js';
import { sizeProblem } from '../../llm/limits.js';
import { INDEX_KEY, RESTATE_NAMES } from './names.js';
import { EventsRequestSchema, InputRequestSchema, ResultRequestSchema, StartRequestSchema, type EventsPage, type IndexEntry } from './records.js';
import { readEvents, readSession, writeSession, type StoredSession } from './session-store.js';
import { SessionTurn, type SessionRuntime } from './session-turn.js';
import type { UsageState } from '../../usage/usage-meter.js';
import { viewOf } from '../view.js';

/** The API's view of a Restate session: teams only, live on the cluster until it ends; usage from the stored meter totals. */
const restateView = (s: SessionState, lastEventSeq: number, usage: UsageState | null) => viewOf(s, { kind: 'team', hosted: s.status !== 'ended', lastEventSeq, usage });

// Readers fetch the few keys they need: without lazy state every call (an event stream polls) would carry the whole log.
const READ = { enableLazyState: true };

const refuse = (status: 400 | 404 | 409, message: string) => new restate.TerminalError(message, { errorCode: status });

function parse<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw refuse(400, `${issue.path.map(String).join('.') || 'body'}: ${issue.message}`);
}

async function existing(ctx: restate.ObjectSharedContext): Promise<StoredSession> {
  const stored = await readSession(ctx);
  if (!stored) throw refuse(404, `no session "${ctx.key}"`);
  return stored;
}

function statusWords(s: SessionState): string {
  if (s.status === 'awaiting_user') return `waiting: ${s.awaiting?.code ?? 'user'}`;
  if (s.status === 'ended') return `ended: ${s.endReason ?? ''}`;
  return s.status === 'idle' ? 'not started' : 'running';
}

/** A session of another team must not be stepped with this worker's definition (workers of one deployment run one team). */
function sameTeam(rt: SessionRuntime, stored: StoredSession): void {
  if (stored.meta.team !== rt.def.name) throw refuse(409, `session ${stored.meta.id} runs the team "${stored.meta.team}"; this worker runs "${rt.def.name}"`);
}

/** Persists a turn and starts its model calls: one-way sends, so a long call never holds this object's lock. */
function commit(ctx: restate.ObjectContext, stored: StoredSession, history: readonly TroupeEvent[], turn: SessionTurn, now: number): void {
  const updatedAt = new Date(now).toISOString();
  writeSession(ctx, { lastSeq: stored.lastSeq, history }, { ...turn.result(), meta: { ...stored.meta, updatedAt } }, turn.events);
  for (const call of turn.calls) ctx.genericSend({ service: RESTATE_NAMES.model, method: 'call', parameter: call, inputSerde: restate.serde.json });
}

/**
 * The `troupe_session` virtual object, keyed by session id. Exclusive handlers apply one input each with the
 * pure `step()` (start, a typed line, a model result) and persist state and events; shared handlers read.
 */
export function sessionObject(rt: SessionRuntime) {
  return restate.object({
    name: RESTATE_NAMES.session,
    options: { retryPolicy: { initialInterval: 100, maxInterval: 2_000, exponentiationFactor: 2 } },
    handlers: {
      /** Creates the session on its brief and starts it; 409 when the key already holds one. */
      start: async (ctx: restate.ObjectContext, raw: unknown) => {
        const { brief, mode } = parse(StartRequestSchema, raw);
        const problem = sizeProblem('brief', brief);
        if (problem) throw refuse(400, `brief: ${problem}`);
        if (await readSession(ctx)) throw refuse(409, `session ${ctx.key} already exists`);
        const now = await ctx.date.now();
        const createdAt = new Date(now).toISOString();
        const stored: StoredSession = {
          meta: { version: 1, id: ctx.key, team: rt.def.name, model: rt.modelLabel, createdAt, updatedAt: createdAt },
          state: initialState(rt.def, { id: ctx.key, ...(mode ? { mode } : {}) }),
          usage: null,
          lastSeq: 0,
        };
        const turn = new SessionTurn(rt, stored, [], now);
        turn.send({ type: 'start', brief, model: rt.modelLabel });
        commit(ctx, stored, [], turn, now);
        const entry: IndexEntry = { id: ctx.key, brief, team: rt.def.name, createdAt };
        ctx.genericSend({ service: RESTATE_NAMES.index, method: 'add', key: INDEX_KEY, parameter: entry, inputSerde: restate.serde.json });
        const result = turn.result();
        return restateView(result.state, result.lastSeq, result.usage);
      },

      /** A line exactly as typed in the terminal UI: a reply, an interjection or a `!` command. */
      input: async (ctx: restate.ObjectContext, raw: unknown) => {
        const { text } = parse(InputRequestSchema, raw);
        const stored = await existing(ctx);
        sameTeam(rt, stored);
        if (stored.state.status === 'ended') throw refuse(409, `session ${ctx.key} has ended; it takes no more input`);
        const history = await readEvents(ctx, 0, stored.lastSeq);
        const now = await ctx.date.now();
        const turn = new SessionTurn(rt, stored, history, now);
        const outcome = executeLine(text, { session: turn.lineSession(), usage: () => turn.lineUsage() });
        if (outcome.kind === 'output' && outcome.tone === 'error') throw refuse(400, outcome.lines.join(' '));
        // Only a workflow launcher switches sessions, and none is given here; kept exhaustive all the same.
        if (outcome.kind === 'switch') throw refuse(400, 'workflows run on the embedded backend');
        // The one deferred inspection lists stored sessions; on Restate the API lists them.
        const lines = outcome.kind === 'later' ? ['sessions on Restate are listed by GET /v1/sessions'] : outcome.kind === 'output' ? outcome.lines : null;
        if (turn.events.length > 0 || turn.snapshot !== stored.state) commit(ctx, stored, history, turn, now);
        if (outcome.kind === 'quit') return { kind: 'quit' };
        if (outcome.kind === 'output' || outcome.kind === 'later') return { kind: 'output', title: outcome.title, lines: lines! };
        return { kind: 'none' };
      },

      /** A model call's outcome, sent by the model service; a stale one (its turn was superseded) is ignored by the engine. */
      result: async (ctx: restate.ObjectContext, raw: unknown) => {
        const request = parse(ResultRequestSchema, raw);
        const stored = await existing(ctx);
        sameTeam(rt, stored);
        const history = await readEvents(ctx, 0, stored.lastSeq);
        // Stamped with the time the call finished (journaled with its outcome): no extra durable step for a clock.
        const turn = new SessionTurn(rt, stored, history, request.outcome.at);
        turn.applyResult(request);
        commit(ctx, stored, history, turn, request.outcome.at);
      },

      /** The session as the API shows it (read-only, runs beside the exclusive handlers). */
      snapshot: restate.handlers.object.shared(READ, async (ctx: restate.ObjectSharedContext) => {
        const stored = await existing(ctx);
        return restateView(stored.state, stored.lastSeq, stored.usage);
      }),

      /** A line of the session list: the status in words (as `troupe sessions` puts it), turns, last change. */
      listing: restate.handlers.object.shared(READ, async (ctx: restate.ObjectSharedContext) => {
        const { meta, state: s } = await existing(ctx);
        return { id: s.id, team: meta.team, brief: s.brief, status: statusWords(s), turns: s.turn, updatedAt: meta.updatedAt, hosted: s.status !== 'ended' };
      }),

      /** The events after `after` (oldest first, at most `limit`), the last sequence number and the status. */
      events: restate.handlers.object.shared(READ, async (ctx: restate.ObjectSharedContext, raw: unknown): Promise<EventsPage> => {
        const { after, limit = 500 } = parse(EventsRequestSchema, raw);
        const stored = await existing(ctx);
        const last = Math.min(stored.lastSeq, after + limit);
        return { events: await readEvents(ctx, after, last), lastSeq: stored.lastSeq, status: stored.state.status };
      }),
    },
  });
}

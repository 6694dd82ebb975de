import type { ObjectContext, ObjectSharedContext } from '@restatedev/restate-sdk';
import * as restate from '@restatedev/restate-sdk';
import type { TroupeEvent } from '../../engine/event-map.js';
import type { SessionState } from '../../engine/session.js';
import { SessionStateSchema } from '../../kinds/schemas.js';
import { chunkKey, chunkOf, chunksBetween, EVENTS_PER_CHUNK } from './event-log.js';
import { SessionMetaSchema, type SessionCore, type SessionHead, type SessionMeta } from './records.js';

/**
 * The session object's keys: `meta` (what it runs, written once), `plan` (a workflow's plan, once), `state`
 * (the engine state) and `head` (what readers show), both written at every quiet point of an invocation,
 * `core` (memory, usage, the demo's progress: read and written once per invocation), `running` (the
 * invocation that drives the session now) and the event log in chunks `events.<n>`.
 */
export const KEYS = { meta: 'meta', plan: 'plan', state: 'state', core: 'core', head: 'head', running: 'running' } as const;

type Reader = Pick<ObjectSharedContext, 'get'>;

// Keys are read one after another: with lazy state concurrent gets stall the SDK for hundreds of ms
// (measured on sdk 1.17 / server 1.7), one at a time they cost about nothing.

const damaged = (key: string, detail: string) => new restate.TerminalError(`session ${key}: ${detail} — the session's Restate state is damaged; start a new session`, { errorCode: 500 });

/** The session's meta, or null when the key holds no session; a session of an older troupe is refused in one line. */
export async function readMeta(ctx: Reader & { key: string }): Promise<SessionMeta | null> {
  const raw = await ctx.get<unknown>(KEYS.meta);
  if (raw === null) return null;
  if ((raw as { version?: unknown }).version === 1)
    throw new restate.TerminalError(`session ${ctx.key} was created by an older troupe (its Restate state is version 1); start a new session`, { errorCode: 409 });
  const parsed = SessionMetaSchema.safeParse(raw);
  if (!parsed.success) throw damaged('meta', parsed.error.issues[0]!.message);
  return parsed.data;
}

/** What readers show of the session. */
export async function readHead(ctx: Reader): Promise<SessionHead | null> {
  return ctx.get<SessionHead>(KEYS.head);
}

/** The session's working state: the engine state (checked) and the rest of `core`. */
export async function readCore(ctx: Reader): Promise<SessionCore | null> {
  const raw = await ctx.get<unknown>(KEYS.state);
  const rest = await ctx.get<Omit<SessionCore, 'state'>>(KEYS.core);
  if (raw === null || rest === null) return null;
  const state = SessionStateSchema.safeParse(raw);
  if (!state.success) throw damaged('state', `${state.error.issues[0]!.path.join('.')}: ${state.error.issues[0]!.message}`);
  return { ...rest, state: state.data as SessionState };
}

/** The events after `after` up to `last`, oldest first: only the chunks holding them are read. */
export async function readEvents(ctx: Reader, after: number, last: number): Promise<TroupeEvent[]> {
  const events: TroupeEvent[] = [];
  for (const n of chunksBetween(after, last)) for (const e of (await ctx.get<TroupeEvent[]>(chunkKey(n))) ?? []) if (e.seq > after && e.seq <= last) events.push(e);
  return events;
}

/** The stored events of the chunk the next event goes in (none when it starts a new chunk). */
export async function readOpenChunk(ctx: Reader, lastSeq: number): Promise<TroupeEvent[]> {
  if (lastSeq % EVENTS_PER_CHUNK === 0) return [];
  return (await ctx.get<TroupeEvent[]>(chunkKey(chunkOf(lastSeq + 1)))) ?? [];
}

/** Writes the session's working state (at the end of an invocation; the engine state is written as it changes). */
export function writeCore(ctx: Pick<ObjectContext, 'set'>, { state, ...core }: SessionCore, options: { withState: boolean }): void {
  if (options.withState) ctx.set(KEYS.state, state);
  ctx.set(KEYS.core, core);
}

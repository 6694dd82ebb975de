import type { ObjectContext, ObjectSharedContext } from '@restatedev/restate-sdk';
import type { TroupeEvent } from '../../engine/event-map.js';
import type { SessionState } from '../../engine/session.js';
import { SessionStateSchema } from '../../kinds/schemas.js';
import type { UsageState } from '../../usage/usage-meter.js';
import { appendToChunks, chunkKey, chunkOf, chunksBetween } from './event-log.js';
import { SessionMetaSchema, type SessionMeta } from './records.js';
import type { SessionRecord } from './session-turn.js';

/**
 * The session object's K/V state: `meta`, `state` (the engine's SessionState), `usage` (meter totals), `log`
 * (`{ lastSeq }`) and the event log in chunks `events.<n>` of EVENTS_PER_CHUNK events each.
 */
export interface StoredSession extends SessionRecord {
  meta: SessionMeta;
}

type Reader = Pick<ObjectSharedContext, 'get'>;

// Keys are read one after another: with lazy state (the readers) concurrent gets stall the SDK for hundreds of ms
// (measured on sdk 1.17 / server 1.7), one at a time they cost about nothing; eager state is local either way.

/** Reads a session's record, or null when the key holds no session. */
export async function readSession(ctx: Reader): Promise<StoredSession | null> {
  const meta = await ctx.get<unknown>('meta');
  if (meta === null) return null;
  const state = await ctx.get<unknown>('state');
  const usage = await ctx.get<UsageState>('usage');
  const log = await ctx.get<{ lastSeq: number }>('log');
  if (state === null) return null;
  return { meta: SessionMetaSchema.parse(meta), state: SessionStateSchema.parse(state) as SessionState, usage, lastSeq: log?.lastSeq ?? 0 };
}

/** The events after `after` up to `last`, oldest first. */
export async function readEvents(ctx: Reader, after: number, last: number): Promise<TroupeEvent[]> {
  const events: TroupeEvent[] = [];
  for (const n of chunksBetween(after, last)) for (const e of (await ctx.get<TroupeEvent[]>(chunkKey(n))) ?? []) if (e.seq > after && e.seq <= last) events.push(e);
  return events;
}

/** Writes what a turn changed: the engine state, usage, the log head and the chunks the new events fall in. */
export function writeSession(ctx: Pick<ObjectContext, 'set'>, before: { lastSeq: number; history: readonly TroupeEvent[] }, next: StoredSession, events: readonly TroupeEvent[]): void {
  ctx.set('meta', next.meta);
  ctx.set('state', next.state);
  ctx.set('usage', next.usage);
  ctx.set('log', { lastSeq: next.lastSeq });
  const open = chunkOf(before.lastSeq + 1);
  const stored = before.history.filter((e) => chunkOf(e.seq) === open);
  for (const w of appendToChunks(stored, events)) ctx.set(chunkKey(w.chunk), w.events);
}

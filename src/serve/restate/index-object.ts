import * as restate from '@restatedev/restate-sdk';
import { RESTATE_NAMES } from './names.js';
import { IndexEntrySchema, type IndexEntry } from './records.js';

const PER_CHUNK = 256;

/**
 * The `troupe_sessions` object (one key): the ids and briefs of every session, in chunks of PER_CHUNK
 * entries (`count`, `entries.<n>`), newest last. The API lists from it and asks each session for its status.
 */
export function indexObject() {
  return restate.object({
    name: RESTATE_NAMES.index,
    handlers: {
      /** Adds a session (sent once by the session's `start`). */
      add: async (ctx: restate.ObjectContext, raw: unknown) => {
        const entry = IndexEntrySchema.parse(raw);
        const count = (await ctx.get<number>('count')) ?? 0;
        const n = Math.floor(count / PER_CHUNK);
        const chunk = (await ctx.get<IndexEntry[]>(`entries.${n}`)) ?? [];
        ctx.set(`entries.${n}`, [...chunk, entry]);
        ctx.set('count', count + 1);
      },
      /** Every entry, newest first. */
      list: restate.handlers.object.shared(async (ctx: restate.ObjectSharedContext): Promise<IndexEntry[]> => {
        const count = (await ctx.get<number>('count')) ?? 0;
        const chunks = await Promise.all(Array.from({ length: Math.ceil(count / PER_CHUNK) }, (_, n) => ctx.get<IndexEntry[]>(`entries.${n}`)));
        return chunks.flatMap((c) => c ?? []).reverse();
      }),
    },
  });
}

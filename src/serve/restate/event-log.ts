import type { TroupeEvent } from '../../engine/event-map.js';

/** Events per state key: each key holds one chunk of the log, so no value grows with the session. */
export const EVENTS_PER_CHUNK = 32;

/** The state key of chunk `n` of a session's event log. */
export function chunkKey(n: number): string {
  return `events.${n}`;
}

/** The chunk holding the event with this sequence number (sequence numbers start at 1 and have no gaps). */
export function chunkOf(seq: number): number {
  return Math.floor((seq - 1) / EVENTS_PER_CHUNK);
}

/** The chunks to read for the events after `after`, up to `last` (inclusive); empty when there are none. */
export function chunksBetween(after: number, last: number): number[] {
  if (last <= after) return [];
  const out: number[] = [];
  for (let n = chunkOf(after + 1); n <= chunkOf(last); n++) out.push(n);
  return out;
}

/**
 * Where new events go: the chunks they touch, each with its whole new content (the open chunk's stored
 * events plus the new ones). `open` is the stored content of the chunk holding `lastSeq + 1`.
 */
export function appendToChunks(open: readonly TroupeEvent[], events: readonly TroupeEvent[]): { chunk: number; events: TroupeEvent[] }[] {
  const writes = new Map<number, TroupeEvent[]>();
  for (const e of events) {
    const n = chunkOf(e.seq);
    let chunk = writes.get(n);
    if (!chunk) {
      chunk = writes.size === 0 ? [...open] : [];
      writes.set(n, chunk);
    }
    chunk.push(e);
  }
  return [...writes].map(([chunk, list]) => ({ chunk, events: list }));
}

import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../../src/engine/event-map.js';
import { appendToChunks, chunkKey, chunkOf, chunksBetween, EVENTS_PER_CHUNK } from '../../../src/serve/restate/event-log.js';

const e = (seq: number) => ({ type: 'note', text: `n${seq}`, session_id: 's', seq, at: 0 }) as TroupeEvent;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => e(from + i));

describe('the chunked event log', () => {
  it('puts seq 1..N in chunk 0 and the next one in chunk 1', () => {
    expect(chunkOf(1)).toBe(0);
    expect(chunkOf(EVENTS_PER_CHUNK)).toBe(0);
    expect(chunkOf(EVENTS_PER_CHUNK + 1)).toBe(1);
    expect(chunkKey(3)).toBe('events.3');
  });

  it('reads only the chunks holding the events after a sequence number', () => {
    expect(chunksBetween(5, 5)).toEqual([]);
    expect(chunksBetween(0, 3)).toEqual([0]);
    expect(chunksBetween(EVENTS_PER_CHUNK, EVENTS_PER_CHUNK * 2 + 1)).toEqual([1, 2]);
  });

  it('appends to the open chunk and opens new ones; no chunk ever holds more than its size', () => {
    const open = range(1, EVENTS_PER_CHUNK - 1);
    const writes = appendToChunks(open, range(EVENTS_PER_CHUNK, EVENTS_PER_CHUNK + 2));
    expect(writes.map((w) => [w.chunk, w.events.length])).toEqual([
      [0, EVENTS_PER_CHUNK],
      [1, 2],
    ]);
    expect(writes[1]!.events.map((x) => x.seq)).toEqual([EVENTS_PER_CHUNK + 1, EVENTS_PER_CHUNK + 2]);
    // At a boundary the open chunk is the new, empty one.
    expect(appendToChunks([], range(EVENTS_PER_CHUNK + 1, EVENTS_PER_CHUNK + 1))).toEqual([{ chunk: 1, events: [e(EVENTS_PER_CHUNK + 1)] }]);
  });
});

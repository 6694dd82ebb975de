import { describe, expect, it } from 'vitest';
import { type Waiter, WaitingReaders } from '../../src/serve/sse-waiting.js';

class Reader implements Waiter<Reader> {
  waitsIn: WaitingReaders<Reader> | null = null;
  waitsAt = 0;
  constructor(readonly name: string) {}
}

const drain = (queue: WaitingReaders<Reader>): string[] => {
  const names: string[] = [];
  for (let r = queue.shift(); r; r = queue.shift()) names.push(r.name);
  return names;
};

describe('readers waiting for their write', () => {
  it('come out oldest first, each once; one added again keeps its place, one taken out does not come', () => {
    const queue = new WaitingReaders<Reader>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => new Reader(n)) as [Reader, Reader, Reader, Reader];
    for (const r of [a, b, c, a, d]) queue.add(r);
    queue.delete(c);
    expect(queue.size).toBe(3);
    expect(queue.has(c)).toBe(false);
    expect(drain(queue)).toEqual(['a', 'b', 'd']);
    expect(queue.size).toBe(0);
    // Out, each can wait again.
    queue.add(c);
    queue.add(a);
    expect(drain(queue)).toEqual(['c', 'a']);
  });

  it('a queue that never empties holds about as many places as wait at once, not as many as passed through it', () => {
    const queue = new WaitingReaders<Reader>();
    const readers = Array.from({ length: 100 }, (_, i) => new Reader(`r${i}`));
    for (const r of readers.slice(0, 10)) queue.add(r);
    const order: string[] = [];
    // Ten wait at any time: one is written (the oldest), one more comes, one waiting leaves.
    for (let round = 0; round < 10_000; round++) {
      order.push(queue.shift()!.name);
      const next = readers.find((r) => !queue.has(r) && !order.slice(-20).includes(r.name)) ?? readers.find((r) => !queue.has(r))!;
      queue.add(next);
      if (round % 7 === 0) {
        const leaving = readers.find((r) => queue.has(r))!;
        queue.delete(leaving);
        queue.add(readers.find((r) => !queue.has(r) && r !== leaving)!);
      }
      expect(queue.size).toBe(10);
    }
    expect(queue.capacity).toBeLessThanOrEqual(20);
    expect(drain(queue)).toHaveLength(10);
  });
});

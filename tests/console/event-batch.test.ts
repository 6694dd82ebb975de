import { describe, expect, it } from 'vitest';
import { batcher } from '../../src/console/event-batch.js';

// The console folds the stream in batches: a replay of thousands of events is one render, not thousands.
describe('batcher', () => {
  const manual = () => {
    const due: (() => void)[] = [];
    return { schedule: (f: () => void) => due.push(f), run: () => due.splice(0).forEach((f) => f()), pending: () => due.length };
  };

  it('hands over everything pushed before a flush in one batch, in order, and schedules one flush per batch', () => {
    const turns = manual();
    const got: number[][] = [];
    const b = batcher<number>((batch) => got.push(batch), turns.schedule);
    for (let i = 0; i < 6_000; i++) b.push(i);
    expect(turns.pending()).toBe(1);
    turns.run();
    expect(got).toHaveLength(1);
    expect(got[0]).toEqual(Array.from({ length: 6_000 }, (_, i) => i));
    b.push(6_000);
    b.push(6_001);
    turns.run();
    expect(got[1]).toEqual([6_000, 6_001]);
    turns.run();
    expect(got).toHaveLength(2);
  });

  it('applies nothing once dropped (the session was left), even a flush already scheduled', () => {
    const turns = manual();
    const got: string[][] = [];
    const b = batcher<string>((batch) => got.push(batch), turns.schedule);
    b.push('a');
    b.drop();
    b.push('b');
    turns.run();
    expect(got).toEqual([]);
  });
});

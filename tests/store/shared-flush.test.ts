import { describe, expect, it } from 'vitest';
import { SharedFlush } from '../../src/store/shared-flush.js';

/** A flush that ends when the test says: each call is logged and waits for `end(i)`. */
function manualFlush() {
  const ends: ((error?: Error) => void)[] = [];
  const flush = new SharedFlush(
    () =>
      new Promise<void>((resolve, reject) => {
        ends.push((error) => (error ? reject(error) : resolve()));
      }),
  );
  return { flush, ends };
}

const settled = () => new Promise((r) => setImmediate(r));

describe('a flush many callers share (the sessions directory, issue 23 item 2)', () => {
  it('callers that ask while one runs share the next, which starts only once that one has ended', async () => {
    const { flush, ends } = manualFlush();
    const done: string[] = [];
    const first = flush.run().then(() => done.push('first'));
    await settled();
    expect(ends).toHaveLength(1);
    // Asked while the first runs: what they wrote may not be in it, so they wait for one that starts after it.
    const waiting = [flush.run(), flush.run(), flush.run()].map((p, i) => p.then(() => done.push(`waiting ${i}`)));
    await settled();
    expect(ends).toHaveLength(1);
    ends[0]!();
    await first;
    await settled();
    expect(done).toEqual(['first']);
    // One flush for the three of them.
    expect(ends).toHaveLength(2);
    ends[1]!();
    await Promise.all(waiting);
    expect(done).toEqual(['first', 'waiting 0', 'waiting 1', 'waiting 2']);
    // Nothing running: the next caller starts one at once.
    void flush.run();
    expect(ends).toHaveLength(3);
  });

  it('each caller gets the outcome of the flush that covers it: a failed one fails its callers only', async () => {
    const { flush, ends } = manualFlush();
    const first = flush.run();
    const second = flush.run();
    ends[0]!(new Error('EIO: i/o error, fsync'));
    await expect(first).rejects.toThrow('EIO');
    await settled();
    expect(ends).toHaveLength(2);
    ends[1]!();
    await expect(second).resolves.toBeUndefined();
    const third = flush.run();
    ends[2]!(new Error('ENOSPC'));
    await expect(third).rejects.toThrow('ENOSPC');
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemorySchema } from '../../src/config/team-schema.js';
import { Memory } from '../../src/memory/memory.js';
import type { Summariser, SummaryJob } from '../../src/memory/summariser.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A summariser that records its jobs and answers at once. */
function recording(): Summariser & { jobs: SummaryJob[] } {
  const jobs: SummaryJob[] = [];
  return { jobs, summarise: async (job) => (jobs.push(job), { decisions: [`d${jobs.length}`], discussions: [], pending: [] }) };
}

describe('the compression check (issue 23, item 6: what a memory turn does not need)', () => {
  it('queues no task on a turn where compression cannot be due, and still compresses on the same turns', async () => {
    const summariser = recording();
    const memory = new Memory({ config: MemorySchema.parse({ compress_every: 5, keep_recent: 2 }), summariser });
    memory.recordUser('A lighthouse game.');
    const queued = vi.spyOn(globalThis, 'queueMicrotask');
    const summarisedAt: number[] = [];
    for (let turn = 1; turn <= 23; turn++) {
      const before = queued.mock.calls.length;
      memory.recordAgent({ turnId: `t${turn}`, persona: turn % 2 ? 'ceo' : 'cfo', text: `Turn ${turn} on the lamp.`, turn });
      // Only a turn that brings the count of turns since the last summary to compress_every asks for the check.
      expect(queued.mock.calls.length - before, `turn ${turn}`).toBe(turn % 5 === 0 ? 1 : 0);
      const jobs = summariser.jobs.length;
      await memory.idle();
      if (summariser.jobs.length > jobs) summarisedAt.push(turn);
    }
    expect(summarisedAt).toEqual([5, 10, 15, 20]);
    // Each summary takes all but the keep_recent newest raw turns.
    expect(summariser.jobs.map((j) => (j.kind === 'segment' ? j.turns.map((t) => t.turn) : []))).toEqual([
      [1, 2, 3],
      [4, 5, 6, 7, 8],
      [9, 10, 11, 12, 13],
      [14, 15, 16, 17, 18],
    ]);
  });

  it('queues none without a summariser (memory that never compresses)', () => {
    const memory = new Memory({ config: MemorySchema.parse({ compress_every: 1 }) });
    const queued = vi.spyOn(globalThis, 'queueMicrotask');
    for (let turn = 1; turn <= 10; turn++) memory.recordAgent({ turnId: `t${turn}`, persona: 'ceo', text: 'A turn.', turn });
    expect(queued).not.toHaveBeenCalled();
  });
});

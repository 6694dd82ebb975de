import { describe, expect, it } from 'vitest';
import { MemorySchema } from '../../src/config/team-schema.js';
import type { EngineEvent } from '../../src/engine/event-map.js';
import { UserError } from '../../src/llm/errors.js';
import { Memory } from '../../src/memory/memory.js';
import type { Summariser, SummaryJob } from '../../src/memory/summariser.js';

const config = (over: Partial<ReturnType<typeof MemorySchema.parse>> = {}) => MemorySchema.parse({ compress_every: 5, keep_recent: 2, max_summaries: 10, ...over });

/** A summariser whose answers the test controls: each job waits until the test settles it. */
class HeldSummariser implements Summariser {
  readonly jobs: { job: SummaryJob; resolve: (ok: boolean) => void }[] = [];
  summarise(job: SummaryJob) {
    return new Promise<{ decisions: string[]; discussions: string[]; pending: string[] }>((resolve, reject) => {
      this.jobs.push({
        job,
        resolve: (ok) => (ok ? resolve({ decisions: [`summary of ${describeJob(job)}`], discussions: [], pending: [] }) : reject(new Error('model down'))),
      });
    });
  }
}

function describeJob(job: SummaryJob): string {
  return job.kind === 'segment' ? `turns ${job.turns.map((t) => t.turn).join(',')}` : `${job.summaries.length} summaries`;
}

const tick = () => new Promise<void>((r) => setTimeout(r, 0));

function feed(memory: Memory, from: number, to: number): void {
  for (let n = from; n <= to; n++) memory.recordAgent({ turnId: `t${n}`, persona: n % 2 ? 'ceo' : 'cfo', text: `message ${n}`, turn: n });
}

describe('Memory', () => {
  it('types raw turns and pins decisions, approvals and rework reasons verbatim at once', () => {
    const m = new Memory({ config: config(), nameOf: (id) => id.toUpperCase() });
    m.recordUser('the brief');
    m.recordAgent({ turnId: 't1', persona: 'ceo', text: 'We go.', turn: 1 });
    m.recordDirective({ turnId: 't1', persona: 'ceo', directive: { transition: 'APPROVE_AND_HANDOFF', next_agent: 'cfo', key_decisions: [' Launch in May '] } });
    m.recordApproval({ by: 'ceo', of: 'cmo', status: 'APPROVED' });
    m.recordAgent({ turnId: 't2', persona: 'cfo', text: 'No.', turn: 2 });
    m.recordDirective({ turnId: 't2', persona: 'cfo', directive: { transition: 'REQUEST_REWORK', rework_reason: 'Show the numbers' } });
    m.recordApproval({ by: 'cfo', of: 'ceo', status: 'REQUEST_REWORK', reason: 'Show the numbers' });
    expect(m.brief).toBe('the brief');
    expect(m.recent.map((t) => t.type)).toEqual(['decision', 'rejection']);
    expect(m.snapshot().pinned).toEqual(['[turn 1] CEO: Launch in May', "[turn 1] CEO approved CMO's work", "[turn 2] CFO sent CEO's work back for rework: Show the numbers"]);
  });

  it('counts a repeated verdict instead of pinning it again, and pins a changed one', () => {
    const m = new Memory({ config: config() });
    m.recordApproval({ by: 'ceo', of: 'cmo', status: 'APPROVED' });
    m.recordApproval({ by: 'ceo', of: 'cmo', status: 'APPROVED' });
    expect(m.pinned).toHaveLength(1);
    expect(m.pinned[0]!.repeats).toBe(2);
    m.recordApproval({ by: 'ceo', of: 'cmo', status: 'REQUEST_REWORK', reason: 'too long' });
    m.recordApproval({ by: 'ceo', of: 'cmo', status: 'APPROVED' });
    expect(m.pinned.map((p) => p.kind)).toEqual(['approval', 'rejection', 'approval']);
  });

  it('compresses the oldest turns in the background, keeping the newest raw', async () => {
    const events: EngineEvent[] = [];
    const s = new HeldSummariser();
    const m = new Memory({ config: config(), summariser: s, publish: (e) => events.push(e) });
    feed(m, 1, 4);
    await tick();
    expect(s.jobs).toHaveLength(0);
    feed(m, 5, 5);
    await tick();
    expect(s.jobs.map((j) => describeJob(j.job))).toEqual(['turns 1,2,3']);
    feed(m, 6, 7); // turns keep arriving while the summary is out
    expect(m.recent).toHaveLength(7);
    s.jobs[0]!.resolve(true);
    await m.idle();
    expect(m.recent.map((t) => t.turn)).toEqual([4, 5, 6, 7]);
    expect(m.summaries[0]).toMatchObject({ first: 1, last: 3, count: 3, decisions: ['summary of turns 1,2,3'] });
    const e = events.find((x) => x.type === 'memory_compressed');
    expect(e).toMatchObject({ turns_in: 3, summaries: 1 });
    if (e?.type !== 'memory_compressed') throw new Error('no event');
    expect(e.tokens_before).toBeGreaterThan(0);
    expect(e.tokens_after).toBeGreaterThan(0);
  });

  it('keeps the raw turns when a summary fails and retries after compress_every more turns', async () => {
    const events: EngineEvent[] = [];
    const s = new HeldSummariser();
    const m = new Memory({ config: config(), summariser: s, publish: (e) => events.push(e) });
    feed(m, 1, 5);
    await tick();
    s.jobs[0]!.resolve(false);
    await m.idle();
    expect(m.recent).toHaveLength(5);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ where: 'memory' });
    feed(m, 6, 9);
    await tick();
    expect(s.jobs).toHaveLength(1);
    feed(m, 10, 10);
    await tick();
    expect(s.jobs).toHaveLength(2);
    expect(describeJob(s.jobs[1]!.job)).toBe('turns 1,2,3,4,5,6,7,8');
    s.jobs[1]!.resolve(true);
    await m.idle();
    expect(m.summaries.map((x) => x.count)).toEqual([8]);
    expect(m.snapshot().failures).toBe(1);
  });

  it('merges the oldest summaries past the cap; a failed merge keeps them all', async () => {
    const s = new HeldSummariser();
    const m = new Memory({ config: config({ compress_every: 1, keep_recent: 0, max_summaries: 2 }), summariser: s });
    for (let n = 1; n <= 3; n++) {
      feed(m, n, n);
      await tick();
      s.jobs[s.jobs.length - 1]!.resolve(true);
      await tick();
    }
    expect(describeJob(s.jobs[3]!.job)).toBe('2 summaries');
    s.jobs[3]!.resolve(false);
    await m.idle();
    expect(m.summaries).toHaveLength(3);
    feed(m, 4, 4);
    await tick();
    s.jobs[4]!.resolve(true);
    await tick();
    expect(describeJob(s.jobs[5]!.job)).toBe('3 summaries');
    s.jobs[5]!.resolve(true);
    await m.idle();
    expect(m.summaries.map((x) => [x.first, x.last, x.count, x.parts])).toEqual([
      [1, 3, 3, 3],
      [4, 4, 1, 1],
    ]);
  });

  it('round-trips through toJSON / fromJSON as plain data', () => {
    const m = new Memory({ config: config() });
    m.recordUser('brief');
    feed(m, 1, 3);
    m.recordDirective({ turnId: 't2', persona: 'cfo', directive: { transition: 'HANDOFF_TO_AGENT', key_decisions: ['Keep it small'] } });
    const data = JSON.parse(JSON.stringify(m.toJSON())) as unknown;
    const back = Memory.fromJSON(data, { config: config() });
    expect(back.toJSON()).toEqual(m.toJSON());
    expect(back.pinned[0]!.text).toBe('Keep it small');
  });

  it('rejects damaged stored state with a one-line error naming the field', () => {
    const bad = { ...new Memory({ config: config() }).toJSON(), raw: [{ id: 1 }] };
    expect(() => Memory.fromJSON(bad, { config: config() })).toThrow(UserError);
    expect(() => Memory.fromJSON(bad, { config: config() })).toThrow(/^session file: memory\.raw\.0\.turn: .* remove the "memory" section/);
  });
});

describe('memory with a summariser that never works', () => {
  it('stays bounded: past the cap the oldest raw turns become a local summary of first sentences, and summaries are merged locally', async () => {
    const failing: Summariser = { summarise: () => Promise.reject(new Error('no JSON mode on this server')) };
    const events: EngineEvent[] = [];
    const m = new Memory({ config: config({ compress_every: 5, keep_recent: 2, max_summaries: 4 }), summariser: failing, publish: (e) => events.push(e) });
    for (let n = 1; n <= 2_000; n++) {
      m.recordAgent({ turnId: `t${n}`, persona: n % 2 ? 'ceo' : 'cfo', text: `Point ${n} is made. More words follow.`, turn: n });
      await m.idle();
    }
    const state = m.toJSON();
    expect(state.raw.length).toBeLessThanOrEqual(50);
    expect(state.summaries.length).toBeLessThanOrEqual(4);
    expect(state.failures).toBeGreaterThan(100);
    expect(state.summaries.reduce((n, s) => n + s.count, 0) + state.raw.length).toBe(2_000);
    expect(state.summaries.at(-1)!.discussions.at(-1)).toMatch(/^(ceo|cfo): Point \d+ is made\.$/);
    expect(JSON.stringify(state).length).toBeLessThan(40_000);
    expect(events.some((e) => e.type === 'memory_compressed')).toBe(true);
  });
});

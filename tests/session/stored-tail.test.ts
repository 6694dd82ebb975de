import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { foldStoredTail } from '../../src/session/stored-tail.js';
import { listingOf } from '../../src/store/listing.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import type { JournalRecord, SessionDocument } from '../../src/store/session-file.js';
import { countTransitions } from '../../src/warming/transitions.js';
import { studio } from '../helpers/team.js';
import { uninterrupted } from '../store/support.js';

/** A finished demo run, stored as if its process died right after creating it: a checkpoint of nothing, every line after it. */
async function crashedAtStart(): Promise<{ doc: SessionDocument; tail: JournalRecord[]; events: TroupeEvent[]; final: SessionDocument['base'] }> {
  const store = new MemoryStore();
  const run = await uninterrupted(store, 'tailfold');
  const read = await store.read('tailfold');
  const doc: SessionDocument = { ...read.doc, checkpoint: { ...read.doc.checkpoint, records: 0, snapshot: read.doc.base, usage: null, transitions: {} } };
  return { doc, tail: read.records, events: read.events, final: run.final };
}

const usageEvent = (cost: number | null, prompt: number, completion: number) =>
  ({ type: 'usage', persona: 'ceo', model: 'm', prompt_tokens: prompt, completion_tokens: completion, cost, total_tokens: 0, total_cost: null }) as unknown as JournalRecord['events'][number];

describe('foldStoredTail: a stored session as its journal ends, in one pass', () => {
  it('steps the state, adds every usage event and counts every transition after the checkpoint', async () => {
    const { doc, tail, events, final } = await crashedAtStart();
    const atEnd = foldStoredTail(doc, tail);
    expect(atEnd.state).toEqual(final);
    const used = events.flatMap((e) => (e.type === 'usage' ? [e] : []));
    expect(used.length).toBeGreaterThan(1);
    expect(atEnd.usage).toMatchObject({ calls: used.length, promptTokens: used.reduce((n, e) => n + e.prompt_tokens, 0), unpricedCalls: used.length });
    expect(Object.keys(atEnd.transitions ?? {}).length).toBeGreaterThan(0);
    expect(atEnd.transitions).toEqual(countTransitions(studio().def, events).toJSON());
    const listing = listingOf(doc, atEnd);
    expect(listing).toMatchObject({ status: final.status, turns: final.turn, tokens: atEnd.usage.promptTokens + atEnd.usage.completionTokens, cost: null });
  });

  it('adds priced calls to the checkpoint’s totals, counts unpriced ones, and reads a damaged usage slot as nothing used', async () => {
    const { doc } = await crashedAtStart();
    const tail: JournalRecord[] = [{ n: 1, events: [usageEvent(0.25, 100, 10), usageEvent(null, 7, 3), usageEvent(0.5, 1, 1)] }];
    const saved = { session: { calls: 2, promptTokens: 1000, completionTokens: 200, cost: 1, unpricedCalls: 0 } };
    const listed = listingOf(doc, foldStoredTail({ ...doc, checkpoint: { ...doc.checkpoint, usage: saved } }, tail));
    expect(listed.tokens).toBe(1000 + 200 + 110 + 10 + 2);
    expect(listed.cost).toBeCloseTo(1.75);
    const damaged = { session: { calls: 'many', promptTokens: -5, completionTokens: Number.NaN, cost: 'x' } };
    const fromDamaged = listingOf(doc, foldStoredTail({ ...doc, checkpoint: { ...doc.checkpoint, usage: damaged } }, tail));
    expect(fromDamaged.tokens).toBe(122);
    expect(fromDamaged.cost).toBeCloseTo(0.75);
  });

  it('a session whose team is gone keeps its checkpoint’s state and transitions, and still folds its usage', async () => {
    const { doc, tail: withMachine, events } = await crashedAtStart();
    // A journal from before machine lines: without the team directory nothing replays it.
    const tail = withMachine.filter((r) => r.machine === undefined);
    expect(tail.length).toBe(withMachine.length - 1);
    const gone: SessionDocument = { ...doc, team: { ...doc.team, dir: '/nonexistent/troupe-team' }, checkpoint: { ...doc.checkpoint, transitions: { ceo: { cfo: 2 } } } };
    const atEnd = foldStoredTail(gone, tail);
    expect(atEnd.state).toBeNull();
    // Its machine line holds the team it ran: the tail is folded with it.
    expect(foldStoredTail(gone, withMachine).state).toEqual(foldStoredTail(doc, withMachine).state);
    expect(atEnd.transitions).toEqual({ ceo: { cfo: 2 } });
    expect(atEnd.usage.calls).toBe(events.filter((e) => e.type === 'usage').length);
    expect(listingOf(gone, atEnd)).toMatchObject({ status: doc.checkpoint.snapshot.status, turns: doc.checkpoint.snapshot.turn });
  });

  it('a session stored before transitions were kept lists none, whatever its tail holds', async () => {
    const { doc, tail } = await crashedAtStart();
    const { transitions: _none, ...checkpoint } = doc.checkpoint;
    const atEnd = foldStoredTail({ ...doc, checkpoint }, tail);
    expect(atEnd.transitions).toBeNull();
    expect(listingOf({ ...doc, checkpoint }, atEnd).transitions).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { MemoryStore, type StoredCopy } from '../../src/store/memory-store.js';
import { comparable, resumeDemo, stateOfCopy, uninterrupted, type RunResult } from './support.js';

/** Every copy the store held of one session, in write order: each is a point a crash could leave behind. */
async function writesOfReference(): Promise<{ copies: StoredCopy[] } & RunResult> {
  const copies: StoredCopy[] = [];
  const store = new MemoryStore((_id, copy) => copies.push(copy));
  const ref = await uninterrupted(store, 'ref');
  return { copies, ...ref };
}

/** Restores a store holding one copy and resumes it. */
function resumeFrom(copy: StoredCopy) {
  return resumeDemo(MemoryStore.from({ ref: copy }), 'ref');
}

describe('resume from any write', () => {
  it('continues to the same final state and transcript from every point the session was written', async () => {
    const { copies, final, transcript } = await writesOfReference();
    expect(copies.length).toBeGreaterThan(10);
    for (const copy of copies) {
      const resumed = await resumeFrom(copy);
      expect(comparable(resumed.final)).toEqual(comparable(final));
      expect(resumed.transcript.filter((t) => t.status !== 'aborted')).toEqual(transcript);
    }
  });

  it('resumes inside the rework loop with the history stack of the uninterrupted run', async () => {
    const { copies, steps } = await writesOfReference();
    // The write where the Game Designer's rework request sent the work back to the Creative Partner.
    const copy = copies.find((c) => {
      const s = stateOfCopy(c);
      return s.inFlight?.inbox.kind === 'rework' && s.inFlight.persona === 'creative_partner';
    });
    expect(copy).toBeDefined();
    const resumed = await resumeFrom(copy!);
    expect(resumed.start.active).toBe('creative_partner');
    expect(resumed.start.routing!.history).toEqual([]);
    expect(resumed.start.routing!.reworks).toEqual({ 'game_designer>creative_partner': 1 });
    // Every state after the crash point equals the uninterrupted run's state at the same step.
    const at = steps.findIndex((s) => JSON.stringify(s) === JSON.stringify(resumed.start));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(resumed.steps.slice(at + 1)).toEqual(steps.slice(at + 1));
    expect(resumed.steps[at + 1]!.routing!.history).toEqual(['creative_partner']);
  });

  it('resumes inside the budget detour (scenario B) and returns to the proposer', async () => {
    const { copies, steps } = await writesOfReference();
    const copy = copies.find((c) => stateOfCopy(c).inFlight?.persona === 'cfo');
    expect(copy).toBeDefined();
    const resumed = await resumeFrom(copy!);
    expect(resumed.start.routing!.detours).toEqual([expect.objectContaining({ target: 'cfo', returnTo: 'lead_engineer' })]);
    expect(resumed.start.routing!.history).toEqual(['creative_partner', 'game_designer', 'lead_engineer']);
    const at = steps.findIndex((s) => JSON.stringify(s) === JSON.stringify(resumed.start));
    expect(resumed.steps.slice(at + 1)).toEqual(steps.slice(at + 1));
    const back = resumed.steps[at + 1]!;
    expect(back.active).toBe('lead_engineer');
    expect(back.routing!.detours).toEqual([]);
    expect(back.routing!.history).toEqual(['creative_partner', 'game_designer']);
    expect(back.configuration).toEqual(['TECHNICAL.lead_engineer']);
  });

  it('re-runs the call in flight exactly once and records it once', async () => {
    const { copies, transcript } = await writesOfReference();
    const mid = copies.find((c) => stateOfCopy(c).turn === 5 && stateOfCopy(c).status === 'running')!;
    const resumed = await resumeFrom(mid);
    const said = resumed.transcript.filter((t) => t.kind === 'agent' && t.status !== 'aborted');
    const turns = said.map((t) => t.turn);
    expect(new Set(turns).size).toBe(turns.length);
    expect(resumed.transcript.filter((t) => t.status !== 'aborted')).toEqual(transcript);
  });
});

import { describe, expect, it } from 'vitest';
import type { SessionState } from '../../src/engine/session.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { demoProgress } from '../../src/store/demo-progress.js';
import { parseSessionFile } from '../../src/store/load-file.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { openStoredSession } from '../../src/store/stored-session.js';
import { studio } from '../helpers/team.js';
import { comparable, uninterrupted } from './support.js';

/** Every text the store wrote for one session, in order: each is a point a crash could leave behind. */
async function writesOfReference(): Promise<{ texts: string[]; steps: SessionState[]; final: SessionState }> {
  const texts: string[] = [];
  const store = new MemoryStore((_id, text) => texts.push(text));
  const ref = await uninterrupted(store, 'ref');
  return { texts, ...ref };
}

/** Restores a store holding one written text, resumes it, and returns the states it steps through. */
async function resumeFrom(text: string): Promise<{ start: SessionState; steps: SessionState[]; final: SessionState }> {
  const store = new MemoryStore();
  store.texts.set('ref', text);
  const steps: SessionState[] = [];
  const stored = await openStoredSession({
    store,
    id: 'ref',
    model: (file) => new DemoModel(demoProgress(file.events)),
    openTeam: () => studio(),
    onStep: (s) => steps.push(s),
  });
  const start = stored.runner.session;
  stored.resume();
  await stored.runner.settled();
  await stored.close();
  return { start, steps, final: stored.runner.session };
}

describe('resume from any write', () => {
  it('continues to the same final state and transcript from every point the file was written', async () => {
    const { texts, final } = await writesOfReference();
    expect(texts.length).toBeGreaterThan(10);
    for (const text of texts) {
      const resumed = await resumeFrom(text);
      expect(comparable(resumed.final)).toEqual(comparable(final));
    }
  });

  it('resumes inside the rework loop with the history stack of the uninterrupted run', async () => {
    const { texts, steps } = await writesOfReference();
    // The write where the Game Designer's rework request sent the work back to the Creative Partner.
    const text = texts.find((t) => {
      const s = parseSessionFile(t, 'memory').file.snapshot;
      return s.inFlight?.inbox.kind === 'rework' && s.inFlight.persona === 'creative_partner';
    });
    expect(text).toBeDefined();
    const resumed = await resumeFrom(text!);
    expect(resumed.start.active).toBe('creative_partner');
    expect(resumed.start.history).toEqual([]);
    expect(resumed.start.reworks).toEqual({ 'game_designer>creative_partner': 1 });
    // Every state after the crash point equals the uninterrupted run's state at the same step.
    const at = steps.findIndex((s) => JSON.stringify(s) === JSON.stringify(resumed.start));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(resumed.steps).toEqual(steps.slice(at + 1));
    expect(resumed.steps[0]!.history).toEqual(['creative_partner']);
  });

  it('resumes inside the budget detour (scenario B) and returns to the proposer', async () => {
    const { texts, steps } = await writesOfReference();
    const text = texts.find((t) => parseSessionFile(t, 'memory').file.snapshot.inFlight?.persona === 'cfo');
    expect(text).toBeDefined();
    const resumed = await resumeFrom(text!);
    expect(resumed.start.detours).toEqual([expect.objectContaining({ target: 'cfo', returnTo: 'lead_engineer' })]);
    expect(resumed.start.history).toEqual(['creative_partner', 'game_designer', 'lead_engineer']);
    const at = steps.findIndex((s) => JSON.stringify(s) === JSON.stringify(resumed.start));
    expect(resumed.steps).toEqual(steps.slice(at + 1));
    const back = resumed.steps[0]!;
    expect(back.active).toBe('lead_engineer');
    expect(back.detours).toEqual([]);
    expect(back.history).toEqual(['creative_partner', 'game_designer']);
    expect(back.transitions.at(-1)).toMatchObject({ from: 'STRATEGIC.cfo', to: 'TECHNICAL.lead_engineer', kind: 'detour_return' });
  });

  it('re-runs the call in flight exactly once and records it once', async () => {
    const { texts, final } = await writesOfReference();
    const mid = texts.find((t) => parseSessionFile(t, 'memory').file.snapshot.turn === 5)!;
    const resumed = await resumeFrom(mid);
    const turns = resumed.final.transcript.filter((t) => t.kind === 'agent').map((t) => t.turn);
    expect(new Set(turns).size).toBe(turns.length);
    expect(resumed.final.transcript).toEqual(final.transcript);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { event } from '../../src/engine/event-map.js';
import { initialState } from '../../src/engine/step.js';
import { TroupeBus } from '../../src/kernel/bus.js';
import type { JournalPort } from '../../src/kernel/ports.js';
import { SessionKernel } from '../../src/kernel/session-kernel.js';
import { studio } from '../helpers/team.js';

function kernelWithJournal() {
  const def = studio().def;
  const lines: { kind: 'step' | 'facts'; types: string[] }[] = [];
  const journal: JournalPort = {
    location: null,
    joinsFacts: true,
    step: (_input, events) => void lines.push({ kind: 'step', types: events.map((e) => e.type) }),
    facts: (events) => void lines.push({ kind: 'facts', types: events.map((e) => e.type) }),
    close: async () => {},
  };
  return { kernel: new SessionKernel(def, initialState(def, { id: 'k' }), new TroupeBus('k', () => 1), journal), lines };
}

const usage = () => event('usage', { persona: 'cfo', model: 'm', prompt_tokens: 1, completion_tokens: 1, cost: null, total_tokens: 2, total_cost: null });

afterEach(() => vi.restoreAllMocks());

describe('the facts the kernel holds for a step', () => {
  it('calls answered within one turn of the event loop share one flush timer, which then finds nothing to write', async () => {
    const { kernel, lines } = kernelWithJournal();
    const timers = vi.spyOn(globalThis, 'setImmediate');
    const cleared = vi.spyOn(globalThis, 'clearImmediate');
    kernel.publishBeforeStep(usage());
    kernel.send({ type: 'start', brief: 'a brief' });
    kernel.publishBeforeStep(usage());
    kernel.send({ type: 'user_message', text: 'more' });
    // One timer made for the turn and left due (a timer made and cleared for each call before).
    expect(timers).toHaveBeenCalledTimes(1);
    expect(cleared).not.toHaveBeenCalled();
    expect(lines.map((l) => [l.kind, l.types[0]])).toEqual([
      ['step', 'usage'],
      ['step', 'usage'],
    ]);
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(2);
  });

  it('a fact held in a later turn gets a timer of its own, and with no step after it a line of its own', async () => {
    const { kernel, lines } = kernelWithJournal();
    kernel.publishBeforeStep(usage());
    kernel.send({ type: 'start', brief: 'a brief' });
    await new Promise((r) => setImmediate(r));
    kernel.publishBeforeStep(usage());
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => l.kind)).toEqual(['step', 'facts']);
    expect(lines[1]!.types).toEqual(['usage']);
  });
});

import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { displayNames } from '../../src/report/display-items.js';
import { timelineOf } from '../../src/report/timeline.js';
import { openSession } from '../../src/session/open-session.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { fixedClock, studio } from '../helpers/team.js';

const ENV = { TROUPE_MODEL: 'test-model' };

/** The demo team run to its first pause with `brief`, then approved and run to its next pause; the session's stored read. */
async function demoSession(brief: string) {
  const store = new MemoryStore();
  const team = studio();
  const session = await openSession({ team, model: new DemoModel(), store, id: 's', env: ENV, clock: fixedClock(), memory: false });
  session.start(brief);
  await session.settled();
  session.send({ type: 'user_approve', command: { name: 'approve', args: [] } });
  await session.settled();
  await session.stop();
  return { read: await store.read('s'), names: displayNames(team.def) };
}

describe("a session's timeline from its journal", () => {
  it('one step per input, in journal order, covering every line; the brief, the answers by name, the command as typed', async () => {
    const { read, names } = await demoSession('A lighthouse keeper game');
    const steps = timelineOf(read.records, names);
    // Each step ends at its journal line; the last one at the journal's end (runtime facts join the step before them).
    expect(steps.map((s) => s.step)).toEqual([...steps.map((s) => s.step)].sort((a, b) => a - b));
    expect(new Set(steps.map((s) => s.step)).size).toBe(steps.length);
    expect(steps.at(-1)!.step).toBe(read.records.length);
    // The machine line the session was created with (line 1) is no step.
    expect(read.records[0]!.machine).toBeDefined();
    expect(steps.length).toBe(read.records.filter((r) => r.input).length);
    expect(steps[0]).toMatchObject({ by: 'user', title: 'Brief: A lighthouse keeper game' });
    const answers = steps.filter((s) => s.by === 'agent');
    expect(answers.length).toBeGreaterThan(1);
    for (const a of answers) expect(a.title).toMatch(/^(Creative Partner|Game Designer|Lead Engineer|CEO|CFO|CMO|Concept Artist|Art Director) answered$/);
    expect(steps.some((s) => s.by === 'user' && s.title === 'You: !approve')).toBe(true);
    // The transcript up to a step: seqs and turns only go forward.
    for (let i = 1; i < steps.length; i++) {
      expect(steps[i]!.lastSeq).toBeGreaterThanOrEqual(steps[i - 1]!.lastSeq);
      expect(steps[i]!.turn).toBeGreaterThanOrEqual(steps[i - 1]!.turn);
    }
    expect(steps.at(-1)!.lastSeq).toBe(read.events.at(-1)!.seq);
    expect(steps[0]!.at).toBe(read.events[0]!.at);
  });

  it('a brief of many lines, tabs and control characters is titled in one line of at most 160 characters', async () => {
    const brief = `${'a tide\n\tpool\r\n'.repeat(60)}\u0007end`;
    const { read, names } = await demoSession(brief);
    const [first] = timelineOf(read.records, names);
    expect(first!.title.startsWith('Brief: a tide pool a tide pool')).toBe(true);
    expect(first!.title.length).toBeLessThanOrEqual(160);
    expect(first!.title).not.toMatch(/[\n\r\t]/);
    for (const line of first!.lines) expect(line).not.toMatch(/[\n\r\t]/);
  });

  it('an empty journal has no steps', () => {
    expect(timelineOf([], displayNames(studio().def))).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../../src/engine/event-map.js';
import { initialState, step } from '../../../src/engine/step.js';
import { EVENTS_PER_CHUNK } from '../../../src/serve/restate/event-log.js';
import { RestateJournal } from '../../../src/serve/restate/restate-journal.js';
import { studio } from '../../helpers/team.js';

const e = (seq: number) => ({ type: 'note', text: `n${seq}`, session_id: 's', seq, at: 0 }) as TroupeEvent;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => e(from + i));

/** A context that records the keys written. */
function recorder() {
  const writes: { key: string; value: unknown }[] = [];
  return { writes, ctx: { key: 's', set: (key: string, value: unknown) => void writes.push({ key, value: structuredClone(value) }) } };
}

describe('the journal port on Restate', () => {
  const def = studio().def;
  const idle = initialState(def, { id: 's' });
  const started = step(def, idle, { type: 'start', brief: 'b', model: 'm' }).session;

  it('writes nothing at a quiet point where nothing happened', () => {
    const { writes, ctx } = recorder();
    new RestateJournal(ctx as never, idle, 0, [], () => 0).flush();
    expect(writes).toEqual([]);
  });

  it('writes the new events into the chunks they fall in (rewriting only the open one), the head, and the engine state when it changed', () => {
    const { writes, ctx } = recorder();
    const open = range(1, EVENTS_PER_CHUNK - 2);
    const journal = new RestateJournal(ctx as never, idle, EVENTS_PER_CHUNK - 2, open, () => Date.UTC(2026, 0, 1));
    journal.step({ type: 'start', brief: 'b', model: 'm' }, range(EVENTS_PER_CHUNK - 1, EVENTS_PER_CHUNK + 1), started);
    journal.flush();
    expect(writes.map((w) => w.key)).toEqual(['events.0', 'events.1', 'head', 'state']);
    expect((writes[0]!.value as TroupeEvent[]).map((x) => x.seq)).toEqual(range(1, EVENTS_PER_CHUNK).map((x) => x.seq));
    expect((writes[1]!.value as TroupeEvent[]).map((x) => x.seq)).toEqual([EVENTS_PER_CHUNK + 1]);
    expect(writes[2]!.value).toMatchObject({ lastSeq: EVENTS_PER_CHUNK + 1, updatedAt: '2026-01-01T00:00:00.000Z', state: { status: 'running', brief: 'b' } });
    expect(journal.lastSeq).toBe(EVENTS_PER_CHUNK + 1);

    // A fact alone: the open chunk (now chunk 1) grows, the state is not written again.
    writes.length = 0;
    journal.facts([e(EVENTS_PER_CHUNK + 2)]);
    journal.flush();
    expect(writes.map((w) => w.key)).toEqual([`events.1`, 'head']);
    expect((writes[0]!.value as TroupeEvent[]).map((x) => x.seq)).toEqual([EVENTS_PER_CHUNK + 1, EVENTS_PER_CHUNK + 2]);
  });

  it("writes the engine state again when its status changes, else at most once a second of the session's clock, and at the end", () => {
    const { writes, ctx } = recorder();
    let now = Date.UTC(2026, 0, 1);
    const journal = new RestateJournal(ctx as never, idle, 0, [], () => now);
    journal.step({ type: 'start', brief: 'b', model: 'm' }, [e(1)], started);
    journal.flush();
    const next = { ...started, turn: started.turn + 1 };
    journal.step({ type: 'user_continue' } as never, [e(2)], next);
    now += 999;
    journal.flush();
    expect(writes.filter((w) => w.key === 'state')).toHaveLength(1);
    journal.flushState();
    expect(writes.filter((w) => w.key === 'state').map((w) => (w.value as { turn: number }).turn)).toEqual([started.turn, started.turn + 1]);
    journal.step({ type: 'user_continue' } as never, [e(3)], { ...next, turn: next.turn + 1 });
    now += 1_000;
    journal.flush();
    expect(writes.filter((w) => w.key === 'state')).toHaveLength(3);
  });

  it('writes nothing once closed (the invocation is over)', async () => {
    const { writes, ctx } = recorder();
    const journal = new RestateJournal(ctx as never, idle, 0, [], () => 0);
    await journal.close();
    journal.step({ type: 'start', brief: 'b', model: 'm' }, [e(1)], started);
    journal.flush();
    expect(writes).toEqual([]);
  });
});

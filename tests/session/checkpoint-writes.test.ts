import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { restoreRecord } from '../../src/store/journal-codec.js';
import { MemoryStore, type StoredCopy } from '../../src/store/memory-store.js';
import type { Checkpoint, JournalRecord, SessionDocument } from '../../src/store/session-file.js';
import type { SessionHandle } from '../../src/store/store.js';
import { fixedClock, studio } from '../helpers/team.js';
import { handleWith, WrappedStore } from '../helpers/wrapped-store.js';

const ENV = { TROUPE_MODEL: 'test-model' };
const BRIEF = 'A lighthouse keeper game';

/** The raw turns the memory records from journal lines: persona messages, and user lines after the first (the brief). */
function turnsIn(lines: readonly string[], id = 'mem'): number {
  // Each line as it reads back (from format 7 an event of a usual layout is stored as a row).
  const events = lines.flatMap((l) => restoreRecord(JSON.parse(l) as JournalRecord, id).events as unknown as TroupeEvent[]);
  const users = events.filter((e) => e.type === 'user_input').length;
  return events.filter((e) => e.type === 'agent_message').length + Math.max(0, users - 1);
}

/** A memory store whose checkpoint writes are held until released: the document is stored at once, but the writer hears it is done only on `release()`. */
class HeldWrites extends WrappedStore<MemoryStore> {
  readonly asked: Checkpoint[] = [];
  private held: (() => void)[] = [];
  hold = true;
  release(): void {
    this.hold = false;
    for (const done of this.held.splice(0)) done();
  }
  protected override wrap(h: SessionHandle): SessionHandle {
    return handleWith(h, {
      checkpoint: async (c, m, o) => {
        this.asked.push(c);
        await h.checkpoint(c, m, o);
        if (this.hold) await new Promise<void>((done) => this.held.push(done));
      },
    });
  }
}

describe('checkpoint writes (off the event loop, one at a time)', () => {
  it('checkpoints asked for while one is being written become one write, of the state when it starts: no serialised copy waits in a queue', async () => {
    const store = new HeldWrites(new MemoryStore());
    // Turns a second apart: every turn asks for a checkpoint.
    const session = await openSession({ team: studio(), model: new DemoModel(), store, id: 'held', env: ENV, clock: fixedClock(), memory: false, checkpointLines: 0 });
    session.start(BRIEF);
    await session.settled();
    const lines = store.inner.copy('held').journal.length;
    expect(session.getSnapshot().turn).toBeGreaterThanOrEqual(10);
    // Ten turns ran while the first write was held: it is the only one asked for.
    expect(store.asked).toHaveLength(1);
    expect(store.asked[0]!.records).toBeLessThan(lines);
    store.release();
    await new Promise((r) => setTimeout(r, 10));
    // Then one more, of the session as it is now (paused, every line covered).
    expect(store.asked).toHaveLength(2);
    expect(store.asked[1]).toMatchObject({ records: lines, snapshot: { status: 'awaiting_user' } });
    await session.stop();
    expect(store.asked).toHaveLength(3);
  });

  it('a checkpoint holds the memory as it was after every step it covers, so a session reopened from it remembers each turn once', async () => {
    const copies: StoredCopy[] = [];
    const store = new MemoryStore((_id, copy) => copies.push(copy));
    const session = await openSession({ team: studio(), model: new DemoModel(), store, id: 'mem', env: ENV, clock: fixedClock(), memory: true, checkpointLines: 0 });
    session.start(BRIEF);
    await session.settled();
    await session.settleMemory();
    await session.stop();
    let checked = 0;
    let last = '';
    for (const copy of copies) {
      if (copy.doc === last) continue;
      last = copy.doc;
      const { checkpoint } = JSON.parse(copy.doc) as SessionDocument;
      if (checkpoint.memory === null) continue;
      expect((checkpoint.memory as { turnsSeen: number }).turnsSeen, `checkpoint of ${checkpoint.records} lines`).toBe(turnsIn(copy.journal.slice(0, checkpoint.records)));
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
    // Reopened from a copy a crash could leave mid-run (its checkpoint behind its journal): every turn is in its memory once.
    const mid = copies.find((c) => {
      const { checkpoint } = JSON.parse(c.doc) as SessionDocument;
      return checkpoint.memory !== null && checkpoint.records > 0 && checkpoint.records < c.journal.length - 1;
    })!;
    const reopened = await openSession({ store: MemoryStore.from({ mem: mid }), resume: 'mem', team: studio(), model: new DemoModel(), env: ENV, memory: true });
    expect(reopened.memorySnapshot()).not.toBeNull();
    expect((reopened.memory!.data as { turnsSeen: number }).turnsSeen).toBe(turnsIn(mid.journal));
    await reopened.stop();
  });
});

import { describe, expect, it } from 'vitest';
import type { SessionDocument } from '../../src/store/session-file.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { MemoryStore, type StoredCopy } from '../../src/store/memory-store.js';
import type { SessionHandle } from '../../src/store/store.js';
import { fixedClock, studio } from '../helpers/team.js';
import { handleWith, WrappedStore } from '../helpers/wrapped-store.js';

const ENV = { TROUPE_MODEL: 'test-model' };

/** Hands off round the roster, answering at once, then asks the user after `turns` turns. */
class Rounds implements ChatModel {
  readonly label = 'rounds';
  private calls = 0;
  constructor(private readonly turns: number) {}
  async generate(req: ChatRequest): Promise<ChatResponse> {
    this.calls += 1;
    const to = req.meta.handoffTo ?? [];
    const directive = this.calls >= this.turns ? { transition: 'RESPOND_TO_USER' } : { transition: 'HANDOFF_TO_AGENT', next_agent: to[this.calls % to.length] };
    return { text: `turn ${this.calls}`, toolCalls: [{ name: 'handoff_directive', arguments: JSON.stringify(directive) }], usage: null, finishReason: 'tool_calls', model: 'rounds' };
  }
}

/** A memory store noting each point a session's journal is made durable: a checkpoint (its document rewritten) or a flush of the journal alone, with the lines it covers. */
class DurablePoints extends WrappedStore<MemoryStore> {
  readonly points: { lines: number; document: boolean; sync: boolean }[] = [];
  protected override wrap(h: SessionHandle): SessionHandle {
    return handleWith(h, {
      checkpoint: (c, m, o) => {
        this.points.push({ lines: c.records, document: true, sync: o?.sync === true });
        return h.checkpoint(c, m, o);
      },
      flush: (o) => {
        this.points.push({ lines: this.inner.copy(h.id).journal.length, document: false, sync: o?.sync === true });
        return h.flush(o);
      },
    });
  }
}

/** Runs the demo to its first pause, noting each document the store writes (its checkpoint) as it happens. */
async function run(clock: () => number, model: ChatModel = new DemoModel()) {
  const checkpoints: { records: number; turn: number; status: string }[] = [];
  const copies: StoredCopy[] = [];
  let docs = '';
  const store = new MemoryStore((_id, copy) => {
    copies.push(copy);
    if (copy.doc === docs) return;
    docs = copy.doc;
    const doc = JSON.parse(copy.doc) as SessionDocument;
    checkpoints.push({ records: doc.checkpoint.records, turn: doc.checkpoint.snapshot.turn, status: doc.checkpoint.snapshot.status });
  });
  const session = await openSession({ team: studio({ maxTurns: 1000 }), model, store, id: 'c', env: ENV, clock, memory: false });
  session.start('A lighthouse keeper game');
  await session.settled();
  const state = JSON.stringify(session.getSnapshot());
  await session.stop();
  return { store, checkpoints, state, lines: store.copy('c').journal.length, copies };
}

describe('checkpoints (issue 14, item 1)', () => {
  it('with turns a second apart, every new turn is made durable: its journal flushed, and the document rewritten once it is 32 lines behind', async () => {
    const store = new DurablePoints(new MemoryStore());
    const session = await openSession({ team: studio({ maxTurns: 1000 }), model: new Rounds(80), store, id: 'c', env: ENV, clock: fixedClock(), memory: false });
    session.start('A lighthouse keeper game');
    await session.settled();
    const lines = store.inner.copy('c').journal.length;
    await session.stop();
    // Every line after the start (line 2: line 1 records the machine) is covered by the point its next turn (or the pause) made durable.
    const covered = new Set(store.points.map((p) => p.lines));
    for (let line = 3; line <= lines; line++) expect(covered.has(line), `line ${line}`).toBe(true);
    // The document (written at creation, before the machine line) is rewritten every 32 lines, and on close.
    expect(store.points.filter((p) => p.document).map((p) => p.lines)).toEqual([33, 65, lines]);
    // The pause is made durable with its directory.
    expect(store.points.find((p) => !p.document && p.lines === lines)).toMatchObject({ sync: true });
  });

  it('a fast session is checkpointed every 256 journal lines and at every status change; reopening folds the rest', async () => {
    // 600 turns: one journal line each (schema 6; they were two, the step and its call starting); the document is rewritten at 256 and 512.
    const { store, checkpoints, state, lines, copies } = await run(() => Date.UTC(2026, 0, 1), new Rounds(600));
    const running = checkpoints.filter((c, i) => i > 0 && c.status === 'running' && checkpoints[i - 1]!.status === 'running');
    for (const [i, c] of running.entries()) expect(c.records - (running[i - 1]?.records ?? checkpoints[0]!.records), `checkpoint ${i}`).toBeGreaterThanOrEqual(256);
    expect(lines).toBeGreaterThan(256);
    expect(running.length).toBeGreaterThan(0);
    expect(checkpoints.length).toBeLessThan(lines / 32);
    // The pause at the end is always written; and so is close.
    expect(checkpoints.at(-1)).toMatchObject({ status: 'awaiting_user', records: lines });
    const reopened = await openSession({ store, resume: 'c', team: studio({ maxTurns: 1000 }), model: new DemoModel(), env: ENV, memory: false });
    expect(JSON.stringify(reopened.getSnapshot())).toBe(state);
    await reopened.stop();
    // A copy left mid-run (as a crash would leave it) reopens at the step its journal reached, past its checkpoint.
    const mid = copies.find((c) => c.journal.length === 400)!;
    const doc = JSON.parse(mid.doc) as SessionDocument;
    expect(doc.checkpoint.records).toBeLessThan(400);
    const crashed = await openSession({ store: MemoryStore.from({ c: mid }), resume: 'c', team: studio({ maxTurns: 1000 }), model: new DemoModel(), env: ENV, memory: false });
    const completed = mid.journal.filter((line) => line.includes('"type":"agent_completed"')).length;
    expect(crashed.getSnapshot().turn).toBe(completed);
    expect(crashed.getSnapshot().turn).toBeGreaterThan(doc.checkpoint.snapshot.turn);
    await crashed.stop();
  });
});

import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { openSession } from '../../src/session/open-session.js';
import { CHAIN_START, sealLine, withoutSeal } from '../../src/store/journal-chain.js';
import { forkSession } from '../../src/store/fork.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { fixedClock, studio } from '../helpers/team.js';

// Probe (round 12) of journals rewritten by hand: the chain has no key (journal-chain.ts), so anyone can edit a line
// and seal the lines again. Resume, fork and the UI's rewind must answer such a journal in one line, or run it.

const ENV = { TROUPE_MODEL: 'test-model' };

/** A stored team session `s` waiting for the user, its journal rewritten by `edit` (each line's record) and sealed again, its checkpoint before every line. */
async function forged(edit: (record: Record<string, any>, n: number) => void): Promise<MemoryStore> {
  const store = new MemoryStore();
  const first = await openSession({ team: studio(), model: new ScriptedModel([{ text: 'Hello.', directive: { transition: 'RESPOND_TO_USER' } }]), store, id: 's', clock: fixedClock(), env: ENV });
  first.start('a bonsai game');
  await first.settled();
  await first.stop();
  let prev = CHAIN_START;
  const lines = store.journals.get('s')!.map((line, i) => {
    const record = JSON.parse(withoutSeal(line)) as Record<string, any>;
    edit(record, i + 1);
    const sealed = sealLine(JSON.stringify(record), prev);
    prev = sealed.hash;
    return sealed.line;
  });
  store.journals.set('s', lines);
  const doc = JSON.parse(store.docs.get('s')!);
  doc.checkpoint = { records: 0, lastSeq: 0, snapshot: doc.base, memory: null, usage: null, transitions: {}, hash: CHAIN_START };
  store.docs.set('s', JSON.stringify(doc));
  return store;
}

describe('a journal whose lines after the checkpoint hold very many events', () => {
  // Hostile input: 300,000 notes in the first line. The cause was: openSession took the last event's seq with
  // Math.max(...seqs), one argument per event, which overflowed the stack ("internal error: Maximum call stack size
  // exceeded") on resume and on the fork of it. A session whose checkpoints failed to write keeps its whole journal
  // after its checkpoint the same way.
  it('resumes (and forks) with the seq after the last of them', async () => {
    const store = await forged((record, n) => {
      // Line 1 records the machine; line 2 is the first step.
      if (n === 2) for (let i = 0; i < 300_000; i++) record.events.push({ type: 'note', text: 'x' });
    });
    const resumed = await openSession({ team: studio(), store, resume: 's', env: ENV, model: new ScriptedModel([]), recentEvents: 10 });
    const before = resumed.recent().at(-1)!.seq;
    await resumed.stop();
    expect(before).toBeGreaterThan(0);
    await forkSession(store, { from: 's', step: 2, id: 'f', now: '2026-01-01T00:00:00.000Z' });
    const fork = await openSession({ team: studio(), store, resume: 'f', env: ENV, model: new ScriptedModel([]), recentEvents: 10 });
    await fork.stop();
  });
});

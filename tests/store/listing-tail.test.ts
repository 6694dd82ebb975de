import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { foldStoredTail } from '../../src/session/stored-tail.js';
import { sealEnding } from '../../src/store/journal-chain.js';
import { releaseLock } from '../../src/store/lock.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { StoredEntry } from '../../src/store/store.js';
import { writesSettled } from '../../src/store/writes-in-flight.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { BRIEF, ENV } from './support.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const listingOf = (entries: StoredEntry[], id: string) => {
  const e = entries.find((x) => x.id === id)!;
  if (!('listing' in e)) throw new Error(e.error);
  return { status: e.listing.status, turns: e.listing.turns, lockedBy: e.lockedBy };
};

describe('troupe sessions lists a stored session as its journal ends (issue 23, items 2 and 6)', () => {
  it('folds the lines after the checkpoint, the session open or not, and remakes a cached listing when the journal grows under an unchanged document', async () => {
    const data = mkdtempSync(join(tmpdir(), 'troupe-listtail-'));
    dirs.push(data);
    const store = new LowdbStore(data, { foldTail: async (doc, tail) => foldStoredTail(doc, tail) });
    // A clock that never moves: after the first turn no point comes due by time, and the journal stays under 32 lines: waits are in the journal only.
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), store, id: 'tail', brief: BRIEF, env: ENV, clock: () => Date.UTC(2026, 0, 1), memory: false });
    session.start(BRIEF);
    await session.settled();
    await writesSettled();
    const waited = session.getSnapshot();
    expect(waited.status).toBe('awaiting_user');
    const docPath = store.pathOf('tail');
    expect(JSON.parse(readFileSync(docPath, 'utf8')).checkpoint.records).toBe(0);

    // Open here: listed as open, as its journal ends (its document is the one written at creation).
    expect(listingOf(await store.list(), 'tail')).toEqual({ status: 'awaiting_user', turns: waited.turn, lockedBy: process.pid });
    // Its process gone (the lock released, the document never rewritten): listed the same.
    releaseLock(store.lockOf('tail'));
    expect(listingOf(await store.list(), 'tail')).toEqual({ status: 'awaiting_user', turns: waited.turn, lockedBy: null });

    // The journal grows and the document does not (the next wait is within the rule too): the listing follows the journal.
    const mtime = statSync(docPath).mtimeMs;
    session.send({ type: 'user_message', text: 'make it harder' });
    await session.settled();
    await writesSettled();
    expect(statSync(docPath).mtimeMs).toBe(mtime);
    expect(session.getSnapshot().turn).toBeGreaterThan(waited.turn);
    expect(listingOf(await store.list(), 'tail')).toEqual({ status: 'awaiting_user', turns: session.getSnapshot().turn, lockedBy: null });
    await session.stop();
    // Closed: the checkpoint is at the journal's end, known from its last bytes.
    const doc = await store.document('tail');
    const ending = sealEnding(doc.checkpoint.hash!);
    expect(readFileSync(store.journalOf('tail')).subarray(-ending.length).equals(ending)).toBe(true);
    expect(listingOf(await store.list(), 'tail')).toMatchObject({ status: 'awaiting_user', turns: session.getSnapshot().turn });
  });
});

describe('a listing for the server that hosts a session (issue 23, item 2: the busy-server listing)', () => {
  it('lists a hosted session from its checkpoint without folding its journal, and folds it again once it is not hosted', async () => {
    const data = mkdtempSync(join(tmpdir(), 'troupe-listtail-'));
    dirs.push(data);
    let folds = 0;
    const store = new LowdbStore(data, {
      foldTail: async (doc, tail) => {
        folds += 1;
        return foldStoredTail(doc, tail);
      },
    });
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), store, id: 'hosted', brief: BRIEF, env: ENV, clock: () => Date.UTC(2026, 0, 1), memory: false });
    session.start(BRIEF);
    await session.settled();
    await writesSettled();
    // The session listed the store as it started (what its team did before: see warming/learned.ts).
    const before = folds;
    // The document is the one written at creation: its checkpoint is idle, the journal's end waits for the user.
    const hosted = await store.list({ hosted: (id) => id === 'hosted' });
    expect(listingOf(hosted, 'hosted')).toEqual({ status: 'idle', turns: 0, lockedBy: process.pid });
    expect(folds).toBe(before);
    // Asked again (nothing changed), the checkpoint's listing is kept: still no fold.
    await store.list({ hosted: (id) => id === 'hosted' });
    expect(folds).toBe(before);
    // Not hosted by the caller (troupe sessions beside the server): folded, as its journal ends.
    expect(listingOf(await store.list(), 'hosted')).toEqual({ status: 'awaiting_user', turns: session.getSnapshot().turn, lockedBy: process.pid });
    expect(folds).toBe(before + 1);
    await session.stop();
  });
});

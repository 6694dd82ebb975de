import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { NODE_DOCUMENT_FS, type DocumentFs } from '../../src/store/document-file.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { SessionDocument } from '../../src/store/session-file.js';
import { writesSettled } from '../../src/store/writes-in-flight.js';
import { fixedClock, REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { BRIEF, ENV } from './support.js';

const temp = tempDirPerTest('troupe-dir-handle-');

/** This process's descriptors open on `dir` (Linux: /proc/self/fd). */
function handlesOn(dir: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === dir) n++;
    } catch {
      // closed while it was listed
    }
  }
  return n;
}

describe('the sessions directory is flushed through one handle the store keeps (serve at 1,000 sessions: fewer calls on the thread pool)', () => {
  it.runIf(existsSync('/proc/self/fd'))('two sessions pausing flush it through the same open handle, and their documents are in place', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    const dir = join(data, 'sessions');
    for (const id of ['first', 'second']) {
      const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), store, id, brief: BRIEF, env: ENV, clock: fixedClock(), memory: false });
      session.start(BRIEF);
      await session.settled();
      await writesSettled();
      expect(session.getSnapshot().status).toBe('awaiting_user');
      // The pause flushed the directory (its document's rename): through a handle still open, and only one.
      expect(handlesOn(dir)).toBe(1);
      await session.stop();
    }
    expect(handlesOn(dir)).toBe(1);
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith('.json') && f !== 'index.json')
        .sort(),
    ).toEqual(['first.json', 'second.json']);
  });
});

/** The document openSession hands the store for a new session (that session is let go of: it never started). */
async function newDocument(store: LowdbStore): Promise<SessionDocument> {
  const created: SessionDocument[] = [];
  const create = store.create.bind(store);
  const session = await openSession({
    team: studio(),
    teamDir: REPO_ROOT,
    model: new DemoModel(),
    store: Object.assign(Object.create(store) as LowdbStore, { create: (doc: SessionDocument) => (created.push(doc), create(doc)) }),
    id: 'template',
    brief: BRIEF,
    env: ENV,
    clock: fixedClock(),
    memory: false,
  });
  await session.stop();
  return created[0]!;
}

describe('sessions pausing at once share the flushes of the sessions directory (serve at 1,000 sessions: one flush each before)', () => {
  it('twenty sessions whose journals are flushed with the directory at once flush the directory at most twice', async () => {
    const data = temp();
    const dir = join(data, 'sessions');
    let directoryFlushes = 0;
    const fs: DocumentFs = {
      ...NODE_DOCUMENT_FS,
      fsyncSync(fd, path) {
        if (path === dir) directoryFlushes++;
        NODE_DOCUMENT_FS.fsyncSync!(fd, path);
      },
    };
    const store = new LowdbStore(data, { fs });
    const template = await newDocument(store);
    const handles = await Promise.all(Array.from({ length: 20 }, (_, i) => store.create({ ...template, id: `s${i}`, base: { ...template.base, id: `s${i}` } })));
    await Promise.all(handles.map((h) => h.flush({ sync: true })));
    // The first flush and one shared by all that asked while it ran.
    expect(directoryFlushes).toBeGreaterThanOrEqual(1);
    expect(directoryFlushes).toBeLessThanOrEqual(2);
    // Each handle flushes the directory once: later pauses ask no more.
    await Promise.all(handles.map((h) => h.flush({ sync: true })));
    expect(directoryFlushes).toBeLessThanOrEqual(2);
    await Promise.all(handles.map((h) => h.close()));
  });
});

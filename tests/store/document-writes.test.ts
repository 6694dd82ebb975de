import { fstatSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { foldStoredTail } from '../../src/session/stored-tail.js';
import { openSession } from '../../src/session/open-session.js';
import { type DocumentFs, NODE_DOCUMENT_FS } from '../../src/store/document-file.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { writesSettled } from '../../src/store/writes-in-flight.js';
import { fixedClock, REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { BRIEF, ENV } from './support.js';

const temp = tempDirPerTest('troupe-doc-writes-');

/** The real file system, counting the session's checkpoints (written into its slots, in its document's file) and the flushes of its journal (with its size at the last), of the document and of the sessions directory, in order. */
function countingFs(dir: string, id: string) {
  const counts = { documents: 0, journalFlushes: 0, directoryFlushes: 0, journalFlushedBytes: 0, flushes: [] as string[] };
  const fs: DocumentFs = {
    ...NODE_DOCUMENT_FS,
    writeAtSync(fd, bytes, position, path) {
      if (basename(path) === `${id}.json`) counts.documents++;
      NODE_DOCUMENT_FS.writeAtSync!(fd, bytes, position, path);
    },
    fsyncSync(fd, path) {
      counts.flushes.push(basename(path));
      if (path === join(dir, `${id}.jsonl`)) {
        counts.journalFlushes++;
        counts.journalFlushedBytes = fstatSync(fd).size;
      }
      if (path === dir) counts.directoryFlushes++;
      NODE_DOCUMENT_FS.fsyncSync!(fd, path);
    },
  };
  return { fs, counts };
}

describe('a short session writes its document at creation and on close, and flushes its journal at each point made durable (issue 23, item 2)', () => {
  it('ten turns a second apart and a pause: the document as created, flushed with the journal at the first turn, the journal flushed as it goes and whole at the pause, the directory flushed there; listed as its journal ends', async () => {
    const data = temp();
    const dir = join(data, 'sessions');
    const { fs, counts } = countingFs(dir, 'short');
    const store = new LowdbStore(data, { fs, foldTail: async (doc, tail) => foldStoredTail(doc, tail) });
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), store, id: 'short', brief: BRIEF, env: ENV, clock: fixedClock(), memory: false });
    // Created at its own name with its first checkpoint, not through a temp file (nothing to replace), and not flushed yet.
    expect(counts.documents).toBe(0);
    expect(counts.flushes).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir, 'short.json'), 'utf8'))).toMatchObject({ id: 'short', checkpoint: { records: 0 } });
    session.start(BRIEF);
    await session.settled();
    await writesSettled();
    const waited = session.getSnapshot();
    expect(waited.status).toBe('awaiting_user');
    expect(waited.turn).toBeGreaterThanOrEqual(10);
    // Before, every turn a second apart rewrote the document (a temp file created, written, flushed and renamed); the
    // document as created is flushed once, with the journal's first flush, before the directory is.
    expect(counts.documents).toBe(0);
    expect(counts.flushes.filter((f) => f === 'short.json')).toHaveLength(1);
    expect(counts.flushes.indexOf('short.json')).toBeLessThan(counts.flushes.indexOf('sessions'));
    expect(counts.flushes.indexOf('short.json')).toBeLessThan(counts.flushes.indexOf('short.jsonl') + 2);
    expect(counts.journalFlushes).toBeGreaterThan(1);
    expect(counts.journalFlushedBytes).toBe(statSync(join(dir, 'short.jsonl')).size);
    expect(counts.directoryFlushes).toBe(1);
    // What users see is the journal's end: the listing (the session open here) says waiting, at its turn.
    const entry = (await store.list()).find((e) => e.id === 'short');
    expect(entry).toMatchObject({ listing: { status: 'awaiting_user', turns: waited.turn } });
    await session.stop();
    // Closed: the document holds the last step.
    expect(counts.documents).toBe(1);
    const read = await store.read('short');
    expect(read.doc.checkpoint).toMatchObject({ records: read.records.length, snapshot: { status: 'awaiting_user', turn: waited.turn } });
  });
});

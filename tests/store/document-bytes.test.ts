import { afterEach, describe, expect, it, vi } from 'vitest';
import { NODE_DOCUMENT_FS } from '../../src/store/document-file.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { fixedClock, studio } from '../helpers/team.js';
import { ENV } from './support.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-doc-bytes-');

afterEach(() => vi.restoreAllMocks());

describe('a document written from its bytes (a checkpoint holds its document off the JS heap while it waits)', () => {
  it("a session's checkpoints hand the document over as bytes (not a string kept until the journal is flushed), and it reads back", async () => {
    const writes = vi.fn(NODE_DOCUMENT_FS.writeAtSync!);
    const store = new LowdbStore(temp(), { fs: { ...NODE_DOCUMENT_FS, writeAtSync: writes } });
    const brief = 'Ünïcödé — 灯台 🚀';
    const session = await openSession({ team: studio(), model: new DemoModel(), store, id: 'bytes', env: ENV, clock: fixedClock(), memory: false, checkpointLines: 0 });
    session.start(brief);
    await session.settled();
    await session.stop();
    // A checkpoint a turn (turns a second apart), the pause and close, each into its slots.
    expect(writes.mock.calls.length).toBeGreaterThanOrEqual(3);
    for (const [, bytes] of writes.mock.calls) expect(bytes).toBeInstanceOf(Uint8Array);
    const read = await store.read('bytes');
    expect(read.doc.brief).toBe(brief);
    expect(read.doc.checkpoint.records).toBe(read.records.length);
  });
});

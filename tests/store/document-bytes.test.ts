import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DocumentFile, type DocumentFs, NODE_DOCUMENT_FS } from '../../src/store/document-file.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { fixedClock, studio } from '../helpers/team.js';
import { ENV } from './support.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-doc-bytes-');
// Multi-byte UTF-8 (two, three and four bytes), a control character and a lone quote: the bytes must be these exactly.
const TEXT = '{"brief":"Ünïcödé — 灯台 🚀 \\u0007 \\"q\\""}';
const codec = { parse: (t: string) => JSON.parse(t) as unknown, stringify: (d: unknown) => JSON.stringify(d) };

afterEach(() => vi.restoreAllMocks());

describe('a document written from its bytes (a checkpoint holds its document off the JS heap while it waits)', () => {
  it('replaces the document with exactly those bytes, and leaves no temp file', async () => {
    const path = join(temp(), 'doc.json');
    writeFileSync(path, '{"old":true}');
    const file = new DocumentFile(path, codec);
    await file.writeText(Buffer.from(TEXT));
    expect(readFileSync(path)).toEqual(Buffer.from(TEXT));
    expect(existsSync(file.tempPath)).toBe(false);
    // A view into a larger buffer writes only its own bytes.
    const larger = Buffer.from(`xx${TEXT}yy`);
    await file.writeText(larger.subarray(2, larger.length - 2), { durable: true });
    expect(readFileSync(path, 'utf8')).toBe(TEXT);
  });

  it('reaches an injected file system as the same text', async () => {
    const written: unknown[] = [];
    const fs: DocumentFs = { ...NODE_DOCUMENT_FS, writeFileSync: (p, text) => (written.push(text), NODE_DOCUMENT_FS.writeFileSync(p, text)) };
    const path = join(temp(), 'doc.json');
    const larger = Buffer.from(`xx${TEXT}yy`);
    await new DocumentFile(path, codec, fs).writeText(larger.subarray(2, larger.length - 2));
    expect(written).toEqual([TEXT]);
    expect(readFileSync(path, 'utf8')).toBe(TEXT);
  });

  it("a session's checkpoints hand the document over as bytes (not a string kept until the journal is flushed), and it reads back", async () => {
    const writes = vi.spyOn(DocumentFile.prototype, 'writeText');
    const store = new LowdbStore(temp());
    const brief = 'Ünïcödé — 灯台 🚀';
    const session = await openSession({ team: studio(), model: new DemoModel(), store, id: 'bytes', env: ENV, clock: fixedClock(), memory: false, checkpointLines: 0 });
    session.start(brief);
    await session.settled();
    await session.stop();
    // Created, a checkpoint a turn (turns a second apart), the pause and close.
    expect(writes.mock.calls.length).toBeGreaterThanOrEqual(3);
    for (const [text] of writes.mock.calls) expect(text).toBeInstanceOf(Uint8Array);
    const read = await store.read('bytes');
    expect(read.doc.brief).toBe(brief);
    expect(read.doc.checkpoint.records).toBe(read.records.length);
  });
});

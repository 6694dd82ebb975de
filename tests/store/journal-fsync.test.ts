import { copyFileSync, fstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { NODE_DOCUMENT_FS, type DocumentFs } from '../../src/store/document-file.js';
import { slotAt } from '../../src/store/checkpoint-slots.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { SessionDocument } from '../../src/store/session-file.js';
import { fixedClock, REPO_ROOT, studio } from '../helpers/team.js';
import { BRIEF, ENV } from './support.js';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-fsync-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'sessions'));
  return dir;
}

/** Bytes of the first `records` lines of a journal. */
function bytesOfLines(journal: string, records: number): number {
  const text = readFileSync(journal);
  let end = 0;
  for (let i = 0; i < records; i++) end = text.indexOf(10, end) + 1;
  return end;
}

/**
 * The real file system, logging each flush and rename in order; at every rename onto the session document
 * it notes the bytes of the journal lines that document's checkpoint covers, the journal's size on disk,
 * and its size when it was last flushed.
 */
function loggingFs(journal: string, doc: string) {
  const log: string[] = [];
  const atWrite: { covered: number; size: number; flushed: number }[] = [];
  let flushed = 0;
  const fs: DocumentFs = {
    ...NODE_DOCUMENT_FS,
    fsyncSync(fd, path) {
      NODE_DOCUMENT_FS.fsyncSync!(fd, path);
      if (path === journal) flushed = fstatSync(fd).size;
      log.push(`fsync ${basename(path)}`);
    },
    renameSync(from, to) {
      NODE_DOCUMENT_FS.renameSync(from, to);
      log.push(`rename ${basename(from)} ${basename(to)}`);
    },
    writeAtSync(fd, bytes, position, path) {
      // A checkpoint, into the session's slots in its document's file (see checkpoint-slots.ts): the journal lines it covers are on the disk already.
      if (path === doc) {
        const records = (JSON.parse(slotAt(Buffer.from(bytes), 0)!.body.toString('utf8')) as SessionDocument).checkpoint.records;
        atWrite.push({ covered: bytesOfLines(journal, records), size: statSync(journal).size, flushed });
      }
      NODE_DOCUMENT_FS.writeAtSync!(fd, bytes, position, path);
      log.push(`write ${basename(path)}`);
    },
  };
  return { fs, log, atWrite };
}

describe('the journal reaches the disk before a checkpoint that covers it', () => {
  it("every checkpoint written comes after the fsync of every journal line it covers (lines appended while it is written are the next fsync's)", async () => {
    const dir = dataDir();
    const journal = join(dir, 'sessions', 's.jsonl');
    const doc = join(dir, 'sessions', 's.json');
    const { fs, log, atWrite } = loggingFs(journal, doc);
    const session = await openSession({
      store: new LowdbStore(dir, { fs }),
      team: studio(),
      teamDir: REPO_ROOT,
      model: new DemoModel(),
      id: 's',
      brief: BRIEF,
      clock: fixedClock(),
      env: ENV,
      checkpointLines: 0,
    });
    session.start(BRIEF);
    await session.settled();
    await session.stop();
    // The demo runs ten turns: checkpoints while running (once a second of its clock) and at the pause.
    expect(atWrite.length).toBeGreaterThan(5);
    expect(atWrite.filter((r) => r.covered > 0).length).toBeGreaterThan(5);
    for (const [i, r] of atWrite.entries()) expect(r.flushed, `rename ${i + 1}`).toBeGreaterThanOrEqual(r.covered);
    expect(log).toContain('fsync s.jsonl');
    expect(log.indexOf('fsync s.jsonl')).toBeLessThan(log.lastIndexOf('write s.json'));
    expect(log).not.toContain('rename .s.json.tmp s.json');
  });

  it('sealing a version-2 journal: the sealed journal is renamed into place and the directory flushed before the document is replaced', async () => {
    const dir = dataDir();
    const sessions = join(dir, 'sessions');
    const journal = join(sessions, 'fixture-v2.jsonl');
    const doc = join(sessions, 'fixture-v2.json');
    copyFileSync(join(REPO_ROOT, 'tests', 'fixtures', 'sessions', 'v2.json'), doc);
    copyFileSync(join(REPO_ROOT, 'tests', 'fixtures', 'sessions', 'v2.jsonl'), journal);
    const { fs, log } = loggingFs(journal, doc);
    const opened = await new LowdbStore(dir, { fs }).open('fixture-v2');
    await opened.handle.close();
    const upgrade = log.slice(0, log.indexOf('rename .fixture-v2.json.tmp fixture-v2.json') + 1);
    expect(upgrade).toEqual(['fsync .fixture-v2.jsonl.tmp', 'rename .fixture-v2.jsonl.tmp fixture-v2.jsonl', 'fsync sessions', 'rename .fixture-v2.json.tmp fixture-v2.json']);
  });
});

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { dataDirError } from '../../src/store/data-dir.js';
import { NODE_DOCUMENT_FS, type DocumentFs } from '../../src/store/document-file.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { JournalRecord } from '../../src/store/session-file.js';
import type { SessionHandle } from '../../src/store/store.js';
import { fixedClock, REPO_ROOT, studio } from '../helpers/team.js';
import { handleWith, WrappedStore } from '../helpers/wrapped-store.js';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'troupe-safety-'));
  dirs.push(d);
  return d;
};
const ENV = { TROUPE_MODEL: 'test-model' };
const journalOf = (dir: string, id: string): JournalRecord[] =>
  readFileSync(join(dir, 'sessions', `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalRecord);

/** The real lowdb store, whose journal disk fills up after `room` more appends (the write fails with ENOSPC, as the OS reports it). */
class FillingStore extends WrappedStore<LowdbStore> {
  constructor(
    inner: LowdbStore,
    private room: number,
    private readonly dir: string,
  ) {
    super(inner);
  }
  protected override wrap(h: SessionHandle): SessionHandle {
    return handleWith(h, {
      append: (record) => {
        if (this.room-- <= 0) {
          // What the real handle throws when the disk is full: the OS error, in the store's words.
          const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', path: this.inner.journalOf(h.id) });
          throw dataDirError(full, this.dir, `save session ${h.id} to ${this.inner.journalOf(h.id)}`);
        }
        h.append(record);
      },
    });
  }
}

/** The demo model, counting its calls (summaries included). */
class CountingDemo implements ChatModel {
  readonly label = 'demo';
  readonly offline = true;
  readonly free = true;
  calls = 0;
  private readonly demo = new DemoModel();
  generate(request: ChatRequest): Promise<ChatResponse> {
    this.calls += 1;
    return this.demo.generate(request);
  }
}

/** The real file system, whose checkpoint writes (into a session's slots) fail after `room` of them with `code` (half the bytes reach the file first, as on a full disk). */
function failingDocuments(room: number, code: string, message: string): DocumentFs & { writes: number } {
  const fs = {
    ...NODE_DOCUMENT_FS,
    writes: 0,
    writeAtSync(fd: number, bytes: Uint8Array, position: number, path: string) {
      if (++fs.writes > room) {
        NODE_DOCUMENT_FS.writeAtSync!(fd, bytes.subarray(0, bytes.length >> 1), position, path);
        throw Object.assign(new Error(`${code}: ${message}, write`), { code, syscall: 'write', path });
      }
      NODE_DOCUMENT_FS.writeAtSync!(fd, bytes, position, path);
    },
  };
  return fs;
}

describe('data safety', () => {
  it('a failed write stops the session before its next model call, with one line naming the file and the cause; what was saved stays', async () => {
    const dir = dataDir();
    const model = new CountingDemo();
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model, store: new FillingStore(new LowdbStore(dir), 6, dir), id: 'full', env: ENV, memory: false });
    session.start('A lighthouse keeper game');
    await session.settled();
    const callsAtFailure = model.calls;
    expect(session.fault?.message).toMatch(
      /^session full stopped before its next model call: cannot save session full to .*full\.jsonl: no space left for the data directory .* — what was saved before is intact; .* troupe resume full/,
    );
    // No model call ran after the failed write, and nothing more is taken in.
    session.send({ type: 'user_message', text: 'more' });
    await session.settled();
    expect(model.calls).toBe(callsAtFailure);
    expect(session.getSnapshot().turn).toBeLessThan(10);
    await expect(session.stop()).rejects.toThrow(/no space left/);
    // What was saved is whole: 6 lines (schema 6 writes one line per turn: 12 was past the end of the run), each a record; and it resumes (with space again) to the same end as a run that never failed.
    expect(journalOf(dir, 'full')).toHaveLength(6);
    const resumed = await openSession({ store: new LowdbStore(dir), resume: 'full', team: studio(), model: new DemoModel({ creative_partner: 1, game_designer: 1 }), env: ENV, memory: false });
    resumed.resume();
    await resumed.settled();
    expect(resumed.getSnapshot().status).toBe('awaiting_user');
    await resumed.stop();
  });

  it('a failed checkpoint (document) write stops the session once it is known: the call in flight is aborted, no other starts; names the file and the cause, and leaves no temp file', async () => {
    const dir = dataDir();
    const model = new CountingDemo();
    // The document as created is not written through a temp file (nothing to replace): the checkpoints after it are.
    const fs = failingDocuments(1, 'ENOSPC', 'no space left on device');
    // Turns a second apart, as with a real model: every turn is checkpointed (a faster session every 256 lines).
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model, store: new LowdbStore(dir, { fs }), id: 'doc', env: ENV, memory: false, clock: fixedClock(), checkpointLines: 0 });
    session.start('A lighthouse keeper game');
    await session.settled();
    const callsAtFailure = model.calls;
    const docPath = join(dir, 'sessions', 'doc.json');
    expect(session.fault?.message).toBe(
      `session doc stopped before its next model call: cannot save session doc to ${docPath}: no space left for the data directory ${dir} (TROUPE_DATA_DIR) — free some space or set TROUPE_DATA_DIR to a directory you can write — what was saved before is intact; once that is fixed, continue it with troupe resume doc`,
    );
    // The session stopped short of its ten turns; the temp file went at once (not at the next open).
    expect(session.getSnapshot().status).toBe('running');
    expect(session.getSnapshot().turn).toBeLessThan(10);
    expect(readdirSync(join(dir, 'sessions')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    session.send({ type: 'user_message', text: 'more' });
    await session.settled();
    expect(model.calls).toBe(callsAtFailure);
    await expect(session.stop()).rejects.toThrow(/no space left/);
    expect(fs.writes).toBe(2);
    // The checkpoint that loads is the last one written whole (the torn one is passed over); the journal holds every step taken, so it resumes there.
    expect((await new LowdbStore(dir).document('doc')).id).toBe('doc');
    const resumed = await openSession({ store: new LowdbStore(dir), resume: 'doc', team: studio(), model: new DemoModel({ creative_partner: 1 }), env: ENV, memory: false });
    expect(resumed.getSnapshot().turn).toBe(session.getSnapshot().turn);
    await resumed.stop();
  });

  it('a write failing for another cause (an I/O error) says so, without telling to free space', async () => {
    const dir = dataDir();
    const session = await openSession({
      team: studio(),
      teamDir: REPO_ROOT,
      model: new DemoModel(),
      store: new LowdbStore(dir, { fs: failingDocuments(0, 'EIO', 'i/o error') }),
      id: 'eio',
      env: ENV,
      memory: false,
      checkpointLines: 0,
    });
    session.start('A lighthouse keeper game');
    await session.settled();
    const message = session.fault?.message ?? '';
    expect(message).toContain(`cannot save session eio to ${join(dir, 'sessions', 'eio.json')}: EIO: i/o error, write — what was saved before is intact`);
    expect(message).not.toMatch(/free|space|permission/);
    expect(message.split('\n')).toHaveLength(1);
    await expect(session.stop()).rejects.toThrow(/EIO/);
  });

  it('every step is saved before the next model call, even with a model that never does I/O', async () => {
    const dir = dataDir();
    const seen: number[] = [];
    const demo = new DemoModel();
    // Answers in microtasks only (no timer, no I/O): anything that waits on the event loop would starve.
    const instant: ChatModel = {
      label: 'instant demo',
      offline: true,
      free: true,
      generate: (request) => {
        if (request.meta.purpose === 'persona') seen.push(journalOf(dir, 'instant').filter((r) => r.input?.type === 'agent_completed').length);
        return demo.generate(request);
      },
    };
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model: instant, store: new LowdbStore(dir), id: 'instant', env: ENV });
    session.start('A lighthouse keeper game');
    await session.settled();
    // At the k-th persona call, the journal on disk already holds the k-1 completed turns before it.
    expect(seen).toEqual(seen.map((_, k) => k));
    expect(seen.length).toBeGreaterThanOrEqual(10);
    await session.stop();
  });

  it('a temp file a failed document write left behind is removed when the session is opened', async () => {
    const dir = dataDir();
    const first = await openSession({ team: studio({ maxTurns: 1 }), teamDir: REPO_ROOT, model: new DemoModel(), store: new LowdbStore(dir), id: 'tmp', env: ENV });
    // Started: a session that never started is not kept.
    first.start('A lighthouse keeper game');
    await first.settled();
    await first.stop();
    const leftover = join(dir, 'sessions', '.tmp.json.tmp');
    writeFileSync(leftover, '{"half": ');
    const again = await new LowdbStore(dir).open('tmp');
    await again.handle.close();
    expect(existsSync(leftover)).toBe(false);
    expect(readdirSync(join(dir, 'sessions')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

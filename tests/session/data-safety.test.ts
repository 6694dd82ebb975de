import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { dataDirError } from '../../src/store/data-dir.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { JournalRecord, SessionDocument } from '../../src/store/session-file.js';
import type { OpenedSession, ReadSession, SessionHandle, Store, StoredEntry } from '../../src/store/store.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

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
  readFileSync(join(dir, 'sessions', `${id}.jsonl`), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as JournalRecord);

/** The real lowdb store, whose journal disk fills up after `room` more appends (the write fails with ENOSPC, as the OS reports it). */
class FillingStore implements Store {
  constructor(private readonly inner: LowdbStore, private room: number, private readonly dir: string) {}
  async create(doc: SessionDocument): Promise<SessionHandle> {
    const h = await this.inner.create(doc);
    return {
      id: h.id,
      location: h.location,
      get doc() {
        return h.doc;
      },
      append: (record) => {
        if (this.room-- <= 0) {
          // What the real handle throws when the disk is full: the OS error, in the store's words.
          const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', path: this.inner.journalOf(h.id) });
          throw dataDirError(full, this.dir, `save session ${h.id} to ${this.inner.journalOf(h.id)}`);
        }
        h.append(record);
      },
      checkpoint: (c, m, o) => h.checkpoint(c, m, o),
      close: () => h.close(),
    };
  }
  open(id: string): Promise<OpenedSession> {
    return this.inner.open(id);
  }
  read(id: string): Promise<ReadSession> {
    return this.inner.read(id);
  }
  list(): Promise<StoredEntry[]> {
    return this.inner.list();
  }
  ids(): Promise<string[]> {
    return this.inner.ids();
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

describe('data safety', () => {
  it('a failed write stops the session before its next model call, with one line naming the file and the cause; what was saved stays', async () => {
    const dir = dataDir();
    const model = new CountingDemo();
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model, store: new FillingStore(new LowdbStore(dir), 12, dir), id: 'full', env: ENV, memory: false });
    session.start('A lighthouse keeper game');
    await session.settled();
    const callsAtFailure = model.calls;
    expect(session.fault?.message).toMatch(/^session full stopped: cannot save session full to .*full\.jsonl: no space left for the data directory .* — what was saved before is intact; .* troupe resume full/);
    // No model call ran after the failed write, and nothing more is taken in.
    session.send({ type: 'user_message', text: 'more' });
    await session.settled();
    expect(model.calls).toBe(callsAtFailure);
    expect(session.getSnapshot().turn).toBeLessThan(10);
    await expect(session.stop()).rejects.toThrow(/no space left/);
    // What was saved is whole: 12 lines, each a record; and it resumes (with space again) to the same end as a run that never failed.
    expect(journalOf(dir, 'full')).toHaveLength(12);
    const resumed = await openSession({ store: new LowdbStore(dir), resume: 'full', team: studio(), model: new DemoModel({ creative_partner: 1, game_designer: 1 }), env: ENV, memory: false });
    resumed.resume();
    await resumed.settled();
    expect(resumed.getSnapshot().status).toBe('awaiting_user');
    await resumed.stop();
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
    const first = await openSession({ team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), store: new LowdbStore(dir), id: 'tmp', env: ENV });
    await first.stop();
    const leftover = join(dir, 'sessions', '.tmp.json.tmp');
    writeFileSync(leftover, '{"half": ');
    const again = await new LowdbStore(dir).open('tmp');
    await again.handle.close();
    expect(existsSync(leftover)).toBe(false);
    expect(readdirSync(join(dir, 'sessions')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

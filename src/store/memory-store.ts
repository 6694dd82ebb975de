import type { TroupeEvent } from '../engine/event-map.js';
import { UserError } from '../llm/errors.js';
import { listingOf } from './listing.js';
import { SessionLockedError } from './lock.js';
import { parseSessionFile } from './load-file.js';
import type { JournalRecord, SessionDocument } from './session-file.js';
import { checkId, newestFirst, type OpenedSession, type ReadSession, type SessionHandle, type Store, type StoredEntry } from './store.js';

/** What a memory store holds of one session: its document text and journal lines (a crash leaves one of these behind). */
export interface StoredCopy {
  doc: string;
  journal: string[];
}

/** Sessions kept in memory, serialised on every write so each write round-trips like a file; for tests and embedding. */
export class MemoryStore implements Store {
  /** The stored document text per session id; tests may read or corrupt it. */
  readonly docs = new Map<string, string>();
  /** The journal lines per session id. */
  readonly journals = new Map<string, string[]>();
  private readonly open_ = new Set<string>();

  /** `onWrite` sees a copy of the session after every write (tests resume from each one, as a crash would leave it). */
  constructor(private readonly onWrite?: (id: string, copy: StoredCopy) => void) {}

  /** A store holding copies of sessions (for example one a crash left behind). */
  static from(copies: Record<string, StoredCopy>): MemoryStore {
    const store = new MemoryStore();
    for (const [id, copy] of Object.entries(copies)) {
      store.docs.set(id, copy.doc);
      store.journals.set(id, [...copy.journal]);
    }
    return store;
  }

  /** A copy of what is stored for a session now. */
  copy(id: string): StoredCopy {
    return { doc: this.docs.get(id) ?? '', journal: [...(this.journals.get(id) ?? [])] };
  }

  async create(doc: SessionDocument): Promise<SessionHandle> {
    checkId(doc.id);
    if (this.docs.has(doc.id)) throw new UserError(`session ${doc.id} already exists — choose another id`);
    this.lock(doc.id);
    this.journals.set(doc.id, []);
    const handle = this.handle(doc);
    handle.checkpoint(doc.checkpoint, doc);
    return handle;
  }

  async open(id: string, options: { recentEvents?: number } = {}): Promise<OpenedSession> {
    const doc = this.parse(id);
    this.lock(id);
    const records = this.records(id);
    const keep = options.recentEvents ?? 0;
    const recent = keep > 0 ? records.flatMap((r) => r.events as unknown as TroupeEvent[]).slice(-keep) : [];
    return { handle: this.handle(doc), tail: records.slice(doc.checkpoint.records), recent };
  }

  async read(id: string): Promise<ReadSession> {
    const doc = this.parse(id);
    const records = this.records(id);
    return { doc, events: records.flatMap((r) => r.events as unknown as TroupeEvent[]), records };
  }

  async ids(): Promise<string[]> {
    return [...this.docs.keys()];
  }

  async list(): Promise<StoredEntry[]> {
    const out: StoredEntry[] = [];
    for (const id of this.docs.keys()) {
      const location = `memory:${id}`;
      try {
        out.push({ id, location, listing: listingOf(this.parse(id)), lockedBy: this.open_.has(id) ? process.pid : null });
      } catch (error) {
        out.push({ id, location, error: (error as Error).message });
      }
    }
    return newestFirst(out);
  }

  private parse(id: string): SessionDocument {
    const text = this.docs.get(checkId(id));
    if (text === undefined) throw new UserError(`no session ${id} — run troupe sessions to list them`);
    return parseSessionFile(text, `memory:${id}`).file;
  }

  private records(id: string): JournalRecord[] {
    return (this.journals.get(id) ?? []).map((line) => JSON.parse(line) as JournalRecord);
  }

  private lock(id: string): void {
    if (this.open_.has(id)) throw new SessionLockedError(id, process.pid);
    this.open_.add(id);
  }

  private handle(initial: SessionDocument): SessionHandle {
    const id = initial.id;
    let closed = false;
    let doc = initial;
    return {
      id,
      location: `memory:${id}`,
      get doc() {
        return doc;
      },
      append: (record) => {
        if (closed) throw new Error(`session ${id} is closed`);
        this.journals.get(id)!.push(JSON.stringify(record));
        this.onWrite?.(id, this.copy(id));
      },
      checkpoint: (checkpoint, meta) => {
        if (closed) throw new Error(`session ${id} is closed`);
        doc = { ...doc, mode: meta.mode, brief: meta.brief || doc.brief, updatedAt: meta.updatedAt, checkpoint };
        this.docs.set(id, JSON.stringify(doc));
        this.onWrite?.(id, this.copy(id));
      },
      close: async () => {
        if (closed) return;
        closed = true;
        this.open_.delete(id);
      },
    };
  }
}

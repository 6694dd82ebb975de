import { lastRecorded } from './machine-lines.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { UserError } from '../errors.js';
import { listingOf } from './listing.js';
import { SessionLockedError } from './lock.js';
import { CHAIN_START, sealLine, withoutSeal } from './journal-chain.js';
import { CHAINED_SINCE, JournalCheck, journalRules } from './journal-check.js';
import { slimRecord } from './journal-codec.js';
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
    await handle.checkpoint(doc.checkpoint, doc);
    return handle;
  }

  async open(id: string, options: { recentEvents?: number } = {}): Promise<OpenedSession> {
    const parsed = this.parse(id);
    let doc = parsed.file;
    let journal = this.records(id, doc, parsed.storedVersion);
    this.lock(id);
    if (!this.journals.has(id)) this.journals.set(id, []);
    // An older journal (checked above) is sealed afresh, as the file store does.
    if (parsed.storedVersion < CHAINED_SINCE) {
      doc = this.seal(id, doc);
      journal = this.records(id, doc, CHAINED_SINCE);
    }
    const { records, lastHash } = journal;
    const keep = options.recentEvents ?? 0;
    const recent = keep > 0 ? records.flatMap((r) => r.events as unknown as TroupeEvent[]).slice(-keep) : [];
    return { handle: this.handle(doc, lastHash), tail: records.slice(doc.checkpoint.records), recent, machine: lastRecorded(records) };
  }

  async read(id: string): Promise<ReadSession> {
    const { file: doc, storedVersion } = this.parse(id);
    const { records } = this.records(id, doc, storedVersion);
    return { doc, events: records.flatMap((r) => r.events as unknown as TroupeEvent[]), records };
  }

  async document(id: string): Promise<SessionDocument> {
    return this.parse(id).file;
  }

  async ids(): Promise<string[]> {
    return [...this.docs.keys()];
  }

  async list(): Promise<StoredEntry[]> {
    const out: StoredEntry[] = [];
    for (const id of this.docs.keys()) {
      const location = `memory:${id}`;
      try {
        out.push({ id, location, listing: listingOf(this.parse(id).file), lockedBy: this.open_.has(id) ? process.pid : null });
      } catch (error) {
        out.push({ id, location, error: (error as Error).message });
      }
    }
    return newestFirst(out);
  }

  private parse(id: string): { file: SessionDocument; storedVersion: number } {
    const text = this.docs.get(checkId(id));
    if (text === undefined) throw new UserError(`no session ${id} — run troupe sessions to list them`);
    return parseSessionFile(text, `memory:${id}`);
  }

  /** The journal's records, checked as the file store checks them. */
  private records(id: string, doc: SessionDocument, storedVersion: number): { records: JournalRecord[]; lastHash: string } {
    const check = new JournalCheck(`memory:${id}.jsonl`, journalRules(doc, storedVersion, `memory:${id}`));
    const records = (this.journals.get(id) ?? []).map((line) => check.next(Buffer.from(line)));
    check.end();
    return { records, lastHash: check.lastHash };
  }

  /** Seals an older journal's lines (checked already; a version-1 file's events become the first) and stores the document with its checkpoint's hash. */
  private seal(id: string, doc: SessionDocument): SessionDocument {
    let prev = CHAIN_START;
    let covered = CHAIN_START;
    const legacy = doc.legacyEvents && doc.legacyEvents.length > 0 ? [JSON.stringify({ n: 1, events: doc.legacyEvents })] : [];
    const lines = (doc.legacyEvents ? legacy : (this.journals.get(id) ?? [])).map((text, i) => {
      const sealed = sealLine(withoutSeal(text), prev);
      prev = sealed.hash;
      if (i + 1 === doc.checkpoint.records) covered = sealed.hash;
      return sealed.line;
    });
    const { legacyEvents: _legacy, ...rest } = doc;
    const upgraded = { ...rest, checkpoint: { ...rest.checkpoint, hash: covered } };
    this.journals.set(id, lines);
    this.docs.set(id, JSON.stringify(upgraded));
    return upgraded;
  }

  private lock(id: string): void {
    if (this.open_.has(id)) throw new SessionLockedError(id, process.pid);
    this.open_.add(id);
  }

  private handle(initial: SessionDocument, lastHash = CHAIN_START): SessionHandle {
    const id = initial.id;
    let closed = false;
    let doc = initial;
    // What the user vouched for on resuming, taken into the document at the next checkpoint.
    let vouched: Pick<SessionDocument, 'team' | 'workflow' | 'seal'> | null = null;
    const journal = this.journals.get(id)!;
    let last = lastHash;
    return {
      id,
      location: `memory:${id}`,
      get doc() {
        return doc;
      },
      append: (record) => {
        if (closed) throw new Error(`session ${id} is closed`);
        if (record.n !== journal.length + 1) throw new Error(`journal memory:${id}: record ${record.n} appended after line ${journal.length}`);
        const sealed = sealLine(JSON.stringify(slimRecord(record, id)), last);
        journal.push(sealed.line);
        last = sealed.hash;
        this.onWrite?.(id, this.copy(id));
      },
      checkpoint: (checkpoint, meta) => {
        if (closed) throw new Error(`session ${id} is closed`);
        if (checkpoint.records !== journal.length) throw new Error(`session ${id}: a checkpoint of ${checkpoint.records} journal lines, but the journal has ${journal.length}`);
        doc = { ...doc, ...vouched, mode: meta.mode, brief: meta.brief || doc.brief, updatedAt: meta.updatedAt, checkpoint: { ...checkpoint, hash: last } };
        this.docs.set(id, JSON.stringify(doc));
        this.onWrite?.(id, this.copy(id));
        return Promise.resolve();
      },
      vouch: (sources) => {
        vouched = sources;
      },
      // Its lines are stored as they are appended: there is nothing more to flush.
      flush: () => (closed ? Promise.reject(new Error(`session ${id} is closed`)) : Promise.resolve()),
      close: async () => {
        if (closed) return;
        closed = true;
        this.open_.delete(id);
      },
      discard: async () => {
        if (closed) return;
        closed = true;
        this.docs.delete(id);
        this.journals.delete(id);
        this.open_.delete(id);
      },
    };
  }
}

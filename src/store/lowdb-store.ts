import { close, closeSync, constants, copyFileSync, existsSync, fsync, lstatSync, open, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LowSync } from 'lowdb';
import type { TroupeEvent } from '../engine/event-map.js';
import { UserError } from '../errors.js';
import { redactedJson, redactorFrom, type Redactor } from '../llm/redact.js';
import { createdSlot, documentInFile, documentStamp, encodeSlot, newestSlot, nextSlotOffset, OWN_FILE_STAMP, type SlotAt } from './checkpoint-slots.js';
import { checkDataDir, dataDirError } from './data-dir.js';
import { asyncFs, createNewFile, DocumentFile, fsyncOf, NODE_DOCUMENT_FS, readOwnFile, syncDirectoryAsync, type DocumentFs } from './document-file.js';
import { CHAIN_START } from './journal-chain.js';
import { CHAINED_SINCE, journalRules } from './journal-check.js';
import { REPLAYED_SINCE, slimRecord } from './journal-codec.js';
import type { JournalReplay, MachineOf } from './journal-replay.js';
import { ENGINE_SEMANTICS } from '../engine/semantics.js';
import { createJournal, JournalWriter, scanJournal, type JournalEnd } from './journal-file.js';
import { journalTailAfter } from './journal-tail.js';
import { isSessionListing, listingOf, type SessionListing, type TailFold } from './listing.js';
import { machineLinesIn } from './machine-scan.js';
import { acquireLock, acquireNewLock, dropLock, lockHolder, refreshLockIfDue, releaseLock, SessionLockedError } from './lock.js';
import { CURRENT_FORMAT, decodeSessionFile, parseSessionFile, SessionFileError, type FileFormat, type Loaded } from './load-file.js';
import { sealingPathOf, sealJournal } from './seal-journal.js';
import { SharedFlush } from './shared-flush.js';
import { trackWrite } from './writes-in-flight.js';
import { newDocumentSchema, type JournalRecord, type SessionDocument } from './session-file.js';
import { checkId, newestFirst, type OpenedSession, type ReadSession, type SessionHandle, type Store, type StoredEntry } from './store.js';
import { ownFolder } from '../tools/own-folder.js';
import { openOwnFile } from './own-file.js';

/** The replay of a journal's schema-8 lines (see journal-replay.ts), loaded only for a document of schema 8 on. */
async function replayOf(doc: SessionDocument, storedVersion: number, machineOf: MachineOf | undefined): Promise<JournalReplay | null> {
  if (storedVersion < REPLAYED_SINCE) return null;
  return (await import('./journal-replay.js')).journalReplay(doc, machineOf);
}

/** Options of the lowdb store. */
export interface LowdbStoreOptions {
  /** Redacts secrets from stored values (default: from process.env). */
  redact?: Redactor;
  /** JSON indentation of session documents (default 0: compact). */
  indent?: number;
  /** The file format to read (tests inject a future version to exercise migration). */
  format?: FileFormat;
  /** How session documents are written (tests inject one that fails like a full disk). */
  fs?: DocumentFs;
  /** Folds the journal lines after a checkpoint, so a listing shows the session as its journal ends (default: the checkpoint's state). */
  foldTail?: TailFold;
  /**
   * How a step's journal line holds the events step() derived: 'replayed' (schema 8, the default: left out, a reader
   * replays them) or 'stored' (as schema 7 wrote them; readers read either, the bench compares the two).
   */
  stepEvents?: 'replayed' | 'stored';
  /** The machine a stored session runs, which readers replay its journal with (default: the ones its machine lines record, before them its workflow's plan, else its team directory; an embedder whose team is no directory gives its own, for every line). */
  machineOf?: MachineOf;
}

/**
 * A cached listing is good while the document's mtime and the journal's size are those it was made from;
 * `folded` says the journal lines after the checkpoint were folded in (one made before open sessions were
 * folded, or while an open one's journal could not be read whole, was not: it is made again).
 */
type CachedListing = { mtimeMs: number; journalBytes?: number; slotsMtimeMs?: number; folded?: boolean; listing: SessionListing };
// Version 2: listings take usage and transitions from the journal's end too; a version-1 cache is made again.
type Index = { version: 2; sessions: Record<string, CachedListing> };

/** Whether an entry of the listing cache has its shape (the cache is a file anyone can edit: see isSessionListing). */
function isCachedListing(entry: unknown): entry is CachedListing {
  if (entry === null || typeof entry !== 'object') return false;
  const e = entry as Record<string, unknown>;
  return (
    typeof e.mtimeMs === 'number' &&
    (e.journalBytes === undefined || typeof e.journalBytes === 'number') &&
    (e.slotsMtimeMs === undefined || typeof e.slotsMtimeMs === 'number') &&
    (e.folded === undefined || typeof e.folded === 'boolean') &&
    isSessionListing(e.listing)
  );
}

/**
 * Sessions under `<dataDir>/sessions/`: per session a document `<id>.json` (metadata and the checkpoint it was
 * created with, and its later checkpoints: whole documents in two slots written in place into the same file, see
 * checkpoint-slots.ts; sessions of earlier troupes keep theirs in `<id>.checkpoint`, and older ones rewrote
 * `<id>.json`: both still load), an append-only journal `<id>.jsonl` (one line per step) and a lock file;
 * `index.json` caches the listings `troupe sessions` shows.
 */
export class LowdbStore implements Store {
  readonly dir: string;
  private readonly dataDir: string;
  private readonly redact: Redactor;
  private readonly indent: number;
  private readonly format: FileFormat;
  private readonly fs: DocumentFs;
  private readonly foldTail: TailFold | null;
  private readonly stepEvents: 'replayed' | 'stored';
  private readonly machineOf: MachineOf | undefined;
  // The sessions directory, made once.
  private made: Promise<void> | null = null;
  // The sessions directory open for its flushes, once for the store's life (see syncSessions).
  private directory: Promise<number> | null = null;
  // Its flushes, shared by the sessions that ask at once (see syncSessions).
  private readonly sessionsFlush = new SharedFlush(() => this.flushSessions());

  /** Where a session keeps its own files (agents' workspaces): `<data dir>/runs/<id>`. */
  filesOf(id: string): string {
    return join(this.dataDir, 'runs', checkId(id));
  }

  constructor(dataDir: string, options: LowdbStoreOptions = {}) {
    this.format = options.format ?? CURRENT_FORMAT;
    this.dataDir = dataDir;
    this.dir = join(dataDir, 'sessions');
    this.redact = options.redact ?? redactorFrom();
    this.indent = options.indent ?? 0;
    this.fs = options.fs ?? NODE_DOCUMENT_FS;
    this.foldTail = options.foldTail ?? null;
    this.stepEvents = options.stepEvents ?? 'replayed';
    this.machineOf = options.machineOf;
  }

  /** Path of a session's document. */
  pathOf(id: string): string {
    return join(this.dir, `${checkId(id)}.json`);
  }

  /** Path of a session's journal. */
  journalOf(id: string): string {
    return join(this.dir, `${checkId(id)}.jsonl`);
  }

  /** The process holding a session open (its pid), or null when none does. */
  lockedBy(id: string): number | null {
    return lockHolder(this.lockOf(id));
  }

  /** Path of a session's lock file. */
  lockOf(id: string): string {
    return join(this.dir, `${checkId(id)}.lock`);
  }

  /** Path of the checkpoint slots of a session made by an earlier troupe (see checkpoint-slots.ts; later ones keep theirs in `<id>.json`). */
  slotsOf(id: string): string {
    return join(this.dir, `${checkId(id)}.checkpoint`);
  }

  /** A session's document, journal, checkpoint slots and lock file, the id checked once (a new session's path to its first request makes them once). */
  private pathsOf(id: string): SessionFiles {
    const base = join(this.dir, checkId(id));
    return { path: `${base}.json`, journal: `${base}.jsonl`, slots: `${base}.checkpoint`, lock: `${base}.lock` };
  }

  async create(doc: SessionDocument): Promise<SessionHandle> {
    const files = this.pathsOf(doc.id);
    const { lock } = files;
    let locked = false;
    try {
      // The sessions directory is made once (off the event loop), and again if it went away since.
      this.made ??= mkdir(this.dir, { recursive: true }).then(() => undefined);
      const made = this.made;
      await made.catch((error: unknown) => {
        this.made = null;
        throw error;
      });
      // What the store writes must load again: a document its own schema refuses is never created. The
      // fields that come from outside are checked here; the rest is built valid (see newDocumentSchema).
      const checked = newDocumentSchema().safeParse(doc, { jitless: true });
      if (!checked.success) {
        const issue = checked.error.issues[0]!;
        throw new UserError(`cannot create session ${doc.id}: ${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
      }
      if (doc.checkpoint.records !== 0) throw new Error(`session ${doc.id}: a new session's checkpoint of ${doc.checkpoint.records} journal lines, but its journal is new`);
      const first: SessionDocument = { ...doc, checkpoint: { ...doc.checkpoint, hash: CHAIN_START } };
      const bytes = Buffer.from(this.serialise(first));
      let created = await this.createFiles(files, doc.id, bytes);
      if (created.gone) {
        this.made = null;
        // A handle kept on the directory that went away would flush that one.
        this.forgetDirectory();
        await mkdir(this.dir, { recursive: true });
        created = await this.createFiles(files, doc.id, bytes);
      }
      const { lock: locking, document, journal } = created;
      if ('error' in locking) {
        // Another process holding the session may have opened the document made here: what was made is left to it.
        // A lock path that is no lock file (a directory, a FIFO) lets no one open the session: what was made is removed.
        const held = locking.error instanceof SessionLockedError;
        if ('fd' in document && document.fd !== null) (held ? closeSync : (fd: number) => dropFile(fd, files.path))(document.fd);
        if ('fd' in journal) (held ? closeSync : (fd: number) => dropFile(fd, files.journal))(journal.fd);
        throw locking.error;
      }
      locked = true;
      const exists = () => new UserError(`session ${doc.id} already exists in ${this.dir} — choose another id`);
      const documentFd = 'fd' in document ? document.fd : null;
      if (documentFd === null || 'error' in journal) {
        // What one of them made is removed when another failed (a session there already, a full disk).
        if (documentFd !== null) dropFile(documentFd, files.path);
        if ('fd' in journal) dropFile(journal.fd, files.journal);
        if ('error' in document) throw document.error;
        const failed = 'error' in journal ? (journal.error as NodeJS.ErrnoException) : null;
        if (documentFd === null || failed?.code === 'EEXIST') throw exists();
        throw failed;
      }
      const writer = this.writer(files.journal, undefined, journal.fd);
      // Its checkpoints go into the document's own file, clear of the document as created (see documentInFile).
      const slots = { fd: documentFd, path: files.path, last: createdSlot(bytes.length), stamp: OWN_FILE_STAMP };
      return this.handle(first, writer, files, slots, documentFd);
    } catch (error) {
      if (locked) dropLock(lock);
      throw dataDirError(error, this.dataDir, 'save the session');
    }
  }

  /**
   * A new session's three files, created off the loop at once (one wait on the thread pool, not three one after the
   * other: at 1,000 sessions created at once each waited its turn behind every other session's): its lock (see
   * acquireNewLock), its document with its first checkpoint at its own name (O_EXCL: that create is the check that no
   * session is there, and there is nothing to replace: no temp file, flush and rename; its later checkpoints are
   * written into it) and its empty journal (O_EXCL too: a journal there is a session there). Whoever holds the lock
   * decides: another process holding it may have opened the document made here, so a creator without the lock leaves
   * what it made. `gone`: the directory went away.
   */
  private async createFiles(files: SessionFiles, id: string, bytes: Uint8Array) {
    const settle = <T>(made: Promise<T>) =>
      made.then(
        (fd) => ({ fd }),
        (error: unknown) => ({ error }),
      );
    // Not one create at a time (a queue of the process's creates, to spare the directory's lock the spinning of four
    // thread-pool threads): at 1,000 sessions created at once the median create took 17.6 s, not 7.0 s.
    const [lock, document, journal] = await Promise.all([settle(acquireNewLock(files.lock, id)), settle(createNewFile(files.path, bytes)), settle(createJournal(files.journal))]);
    const missing = (made: { error: unknown } | object) => 'error' in made && (made.error as NodeJS.ErrnoException).code === 'ENOENT';
    if (missing(lock) && missing(document) && missing(journal)) return { gone: true as const, lock, document, journal };
    return { gone: false as const, lock, document, journal };
  }

  async open(id: string, options: { recentEvents?: number } = {}): Promise<OpenedSession> {
    const path = this.pathOf(id);
    this.mustExist(id, path);
    const lock = this.lockOf(id);
    try {
      acquireLock(lock, id);
    } catch (error) {
      throw dataDirError(error, this.dataDir, `open session ${id}`);
    }
    try {
      // A document or journal write that died half way (a full disk, a crash) leaves its temp file: the file itself is intact.
      rmSync(join(this.dir, `.${id}.json.tmp`), { force: true });
      rmSync(sealingPathOf(this.journalOf(id)), { force: true });
      const { file, storedVersion, slots: loadedSlots, stamp } = this.load(id, path);
      let doc = file;
      // A journal from before seals is sealed (and checked) as the file is upgraded; a sealed one is checked first, so a damaged one leaves the file as it was.
      const sealFirst = storedVersion < CHAINED_SINCE;
      if (sealFirst) doc = this.upgrade(doc, path, storedVersion);
      const keep = options.recentEvents ?? 0;
      const tail: JournalRecord[] = [];
      let recent: TroupeEvent[] = [];
      // The recent events and the tail's seqs include the events its schema-8 lines leave out: replayed as they are read.
      const replay = await replayOf(doc, storedVersion, this.machineOf);
      const scan = scanJournal(
        this.journalOf(id),
        (record, line) => {
          replay?.next(record, line);
          if (line > doc.checkpoint.records) tail.push(record);
          if (keep > 0) {
            for (const e of record.events) recent.push(e as unknown as TroupeEvent);
            if (recent.length > keep * 2) recent = recent.slice(-keep);
          }
        },
        journalRules(doc, this.format.version, path),
      );
      if (!sealFirst && storedVersion < this.format.version) doc = this.upgrade(doc, path, storedVersion);
      const upgraded = storedVersion < this.format.version;
      // A document rewritten by its upgrade holds no slot: the next is written clear of the document as it is now.
      const ownFile = loadedSlots.path === path;
      const slots = this.openSlots(id, path, upgraded && ownFile ? { path, last: createdSlot(statSync(path).size) } : loadedSlots, upgraded ? documentStamp(statSync(path, { bigint: true })) : stamp);
      const writer = this.writer(this.journalOf(id), scan);
      const handle = this.handle(doc, writer, { path, journal: writer.path, slots: slots.path, lock }, slots);
      return { handle, tail, recent: recent.slice(-keep), machine: replay?.recorded ?? null };
    } catch (error) {
      dropLock(lock);
      throw dataDirError(error, this.dataDir, `open session ${id}`);
    }
  }

  /**
   * Writes a migrated file in the current format: a journal from before schema 3 is sealed first (a
   * version-1 file's events become its first line; a journal that fails its checks is refused with nothing
   * changed), then the old document is kept beside the new one as `<id>.json.v<N>.bak`.
   */
  private upgrade(doc: SessionDocument, path: string, storedVersion: number): SessionDocument {
    const { legacyEvents: _legacy, ...rest } = doc;
    let upgraded: SessionDocument = rest;
    if (storedVersion < CHAINED_SINCE) {
      const hash = sealJournal(this.journalOf(doc.id), doc, storedVersion, path, this.fs);
      upgraded = { ...rest, checkpoint: { ...rest.checkpoint, hash } };
    }
    // Made new: a link (or anything) at the backup's name is removed, never written through.
    const backup = `${path}.v${storedVersion}.bak`;
    rmSync(backup, { force: true });
    copyFileSync(path, backup, constants.COPYFILE_EXCL);
    const file = new DocumentFile<SessionDocument>(path, { parse: (t) => JSON.parse(t) as SessionDocument, stringify: (d) => this.serialise(d) }, this.fs);
    file.write(upgraded);
    file.syncDirectory();
    return upgraded;
  }

  async read(id: string): Promise<ReadSession> {
    const path = this.pathOf(id);
    this.mustExist(id, path);
    try {
      const { file: doc, storedVersion } = this.load(id, path);
      const events: TroupeEvent[] = [...((doc.legacyEvents ?? []) as unknown as TroupeEvent[])];
      const records: JournalRecord[] = [];
      const replay = await replayOf(doc, storedVersion, this.machineOf);
      scanJournal(
        this.journalOf(id),
        (record, line) => {
          replay?.next(record, line);
          for (const e of record.events) events.push(e as unknown as TroupeEvent);
          records.push(record);
        },
        journalRules(doc, storedVersion, path),
      );
      return replay?.gap ? { doc, events, records, replayGap: (await import('./journal-replay.js')).replayGapNote(replay.gap) } : { doc, events, records };
    } catch (error) {
      throw dataDirError(error, this.dataDir, `read session ${id}`);
    }
  }

  async document(id: string): Promise<SessionDocument> {
    const path = this.pathOf(id);
    this.mustExist(id, path);
    try {
      return this.load(id, path).file;
    } catch (error) {
      throw dataDirError(error, this.dataDir, `read session ${id}`);
    }
  }

  private mustExist(id: string, path: string): void {
    if (existsSync(path)) return;
    checkDataDir(this.dataDir);
    throw new UserError(`no session ${id} in ${this.dir} — run troupe sessions to list them`);
  }

  /**
   * A session's document as its last checkpoint left it, the one loader of every reader (open, read, show, listing,
   * fork). A session made by an earlier troupe with `<id>.checkpoint`: its newest whole slot while `<id>.json` is as it
   * was when that slot was written (its stamp), else `<id>.json` (edited by hand, or rewritten by a troupe from before
   * slots: newer than the slots). Any other: the newest whole slot written into `<id>.json`, else the document as
   * created there (see documentInFile). `slots`: the file the next checkpoint goes to and where its newest slot lies
   * (the next is written clear of it); `stamp`: the document file's.
   */
  private load(id: string, path: string): Loaded & { slots: LoadedSlots; stamp: string } {
    const bytes = readOwnFile(path, 'a session file');
    const stamp = documentStamp(statSync(path, { bigint: true }));
    const slotsPath = this.slotsOf(id);
    let slots: Buffer | null = null;
    try {
      slots = readOwnFile(slotsPath, 'a checkpoint file');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    // A torn slot (a write a crash cut short) is passed over: the one before it stands, and the journal holds the rest.
    const inFile = documentInFile(bytes);
    const inFileWhere = inFile.slot ? `${path} (checkpoint ${inFile.slot.seq})` : path;
    if (slots === null) return { ...this.parseDocument(id, decodeSessionFile(inFile.body, inFileWhere), inFileWhere), slots: { path, last: inFile.last }, stamp };
    const newest = newestSlot(slots);
    const last = newest && { offset: newest.offset, length: newest.length, seq: newest.seq };
    if (newest && newest.stamp === stamp) {
      const where = `${slotsPath} (checkpoint ${newest.seq})`;
      return { ...this.parseDocument(id, decodeSessionFile(newest.body, where), where), slots: { path: slotsPath, last }, stamp };
    }
    return { ...this.parseDocument(id, decodeSessionFile(inFile.body, inFileWhere), inFileWhere), slots: { path: slotsPath, last }, stamp };
  }

  /** A session document's text parsed, migrated and checked, its id that of its file's name. */
  private parseDocument(id: string, text: string, where: string): Loaded {
    const loaded = parseSessionFile(text, where, this.format);
    if (loaded.file.id !== id) throw new SessionFileError(`${where}: id "${loaded.file.id}" does not match the file name — rename the file to ${loaded.file.id}.json`);
    return loaded;
  }

  /**
   * Opens the file a session's checkpoints are written into (see load): its `<id>.checkpoint` (a session of an earlier
   * troupe), stamped with its document's `stamp`, or its own document; a link or anything but a file there is refused
   * in one line.
   */
  private openSlots(id: string, path: string, slots: LoadedSlots, stamp: string): OpenSlots {
    if (slots.path === path) return { ...slots, fd: openOwnFile(path, constants.O_WRONLY, 'a session file'), stamp: OWN_FILE_STAMP };
    return { ...slots, fd: openOwnFile(this.slotsOf(id), constants.O_WRONLY | constants.O_CREAT, 'a checkpoint file'), stamp };
  }

  async ids(): Promise<string[]> {
    checkDataDir(this.dataDir);
    if (!existsSync(this.dir)) return [];
    try {
      return readdirSync(this.dir)
        .filter((f) => f.endsWith('.json') && !f.startsWith('.') && f !== 'index.json')
        .map((f) => f.slice(0, -'.json'.length));
    } catch (error) {
      throw dataDirError(error, this.dataDir, 'list sessions');
    }
  }

  async list(options: { hosted?: (id: string) => boolean } = {}): Promise<StoredEntry[]> {
    const hosted = options.hosted ?? (() => false);
    const index = this.readIndex();
    let changed = false;
    const entries: StoredEntry[] = [];
    const ids = await this.ids();
    for (const id of ids.slice()) {
      const location = join(this.dir, `${id}.json`);
      try {
        const { mtimeMs, size } = statSync(location);
        const journalBytes = journalSize(this.journalOf(id));
        // Slots are written in place: their mtime (with the journal's size) tells a checkpoint written since.
        const slotsMtimeMs = mtimeOf(this.slotsOf(id));
        const lockedBy = this.lockedBy(id);
        // An empty document is a session being created (its first checkpoint is written as its create returns), or one
        // whose creator died in between: not listed, and removed (with its empty journal) once no live process holds
        // it. Beside a journal that holds lines it is listed as damaged, and kept.
        if (size === 0 && journalBytes <= 0 && emptyFile(location)) {
          if (lockedBy === null && (await this.removeIfNeverStarted(id))) ids.splice(ids.indexOf(id), 1);
          continue;
        }
        let cached: CachedListing | undefined = index.sessions[id];
        if (cached && !isCachedListing(cached)) cached = undefined;
        // A session the caller hosts is shown as it runs there: its checkpoint's listing will do.
        const live = hosted(id);
        const fresh = cached && cached.mtimeMs === mtimeMs && cached.journalBytes === journalBytes && cached.slotsMtimeMs === slotsMtimeMs && (cached.folded === true || !this.foldTail || live);
        if (!cached || !fresh) {
          // An open session's journal is folded too: its document is a checkpoint that may be 31 lines behind (see
          // JournalRecorder). Not a hosted one's: a busy server's listing folded every session it ran (1,000 of
          // them held its event loop about 2 s, the fold two thirds of it), to show what it knows already.
          const { listing, folded } = live ? { listing: listingOf(this.load(id, location).file), folded: false } : await this.listingAt(id, location, lockedBy !== null);
          cached = { mtimeMs, journalBytes, slotsMtimeMs, folded, listing };
          index.sessions[id] = cached;
          changed = true;
        }
        entries.push({ id, location, listing: cached.listing, lockedBy });
      } catch (error) {
        entries.push({ id, location, error: (dataDirError(error, this.dataDir, 'read it') as Error).message });
      }
    }
    // A session killed before its first brief holds nothing (no brief, no turn): it is removed once no live process holds it.
    const kept: StoredEntry[] = [];
    for (const e of entries) {
      if ('listing' in e && e.lockedBy === null && unstarted(e.listing) && (await this.removeIfNeverStarted(e.id))) ids.splice(ids.indexOf(e.id), 1);
      else kept.push(e);
    }
    for (const id of Object.keys(index.sessions)) {
      if (!ids.includes(id)) {
        delete index.sessions[id];
        changed = true;
      }
    }
    if (changed) this.writeIndex(index);
    return newestFirst(kept);
  }

  /**
   * A session's listing: its checkpoint's, with the journal lines after it folded in (when the store folds, and
   * there are any); `folded` is false when the lines were not folded and may be later (a session open while its
   * journal failed its checks may have been read mid-write).
   */
  private async listingAt(id: string, location: string, open: boolean): Promise<{ listing: SessionListing; folded: boolean }> {
    const { file: doc, storedVersion } = this.load(id, location);
    if (!this.foldTail) return { listing: listingOf(doc), folded: false };
    let tail: JournalRecord[] | null;
    try {
      tail = this.tailOf(doc, storedVersion, location);
    } catch (error) {
      // A journal that fails its checks is named when the session is opened; the listing shows its checkpoint. A
      // checkpoint of no line is no listing (it said "not started" of a session that ran): listed as unreadable,
      // naming the line, as opening it would. One open elsewhere may have been read mid-write: read again next time.
      if (!open && doc.checkpoint.records === 0) throw error;
      return { listing: listingOf(doc), folded: !open };
    }
    if (!tail || tail.length === 0) return { listing: listingOf(doc), folded: true };
    return { listing: listingOf(doc, await this.foldTail(doc, tail, this.machinesBefore(doc))), folded: true };
  }

  /**
   * The journal lines after a session's checkpoint. A sealed journal is read from its checkpoint's line on,
   * found by its seal from the file's end (a closed session's is its last bytes): the lines before it are
   * neither read nor checked again (reading them was most of a cold listing of crashed sessions). An older
   * journal is scanned whole. Null when the checkpoint's line is not in the journal.
   */
  private tailOf(doc: SessionDocument, storedVersion: number, location: string): JournalRecord[] | null {
    const hash = doc.checkpoint.hash;
    if (storedVersion >= CHAINED_SINCE && hash !== undefined) return journalTailAfter(this.journalOf(doc.id), { records: doc.checkpoint.records, hash }, doc.id);
    const tail: JournalRecord[] = [];
    scanJournal(
      this.journalOf(doc.id),
      (record, line) => {
        if (line > doc.checkpoint.records) tail.push(record);
      },
      journalRules(doc, storedVersion, location),
    );
    return tail;
  }

  /** Reads the machine lines of a session's journal before its checkpoint's line (what the lines after it run). */
  private machinesBefore(doc: SessionDocument): () => JournalRecord[] {
    return () => machineLinesIn(this.journalOf(doc.id), doc.checkpoint.records);
  }

  /**
   * Removes a stored session that never started, once its lock is taken (a stale one taken over; a live one
   * refused: then it stays): looked at again under the lock, it must still be idle with no brief as its journal
   * ends (the lines after its checkpoint hold no input, or fold to that). True when it was removed.
   */
  private async removeIfNeverStarted(id: string): Promise<boolean> {
    const lock = this.lockOf(id);
    try {
      acquireLock(lock, id);
    } catch {
      return false;
    }
    try {
      const location = this.pathOf(id);
      // Its creator died between the document's create and its write: nothing was ever written (see list).
      if (emptyFile(location)) {
        if (journalSize(this.journalOf(id)) > 0) return false;
        await this.removeFiles(id);
        return true;
      }
      const { file: doc, storedVersion } = this.load(id, location);
      if (!unstarted(listingOf(doc))) return false;
      const tail = this.tailOf(doc, storedVersion, location);
      if (tail === null) return false;
      if (tail.some((r) => r.input !== undefined)) {
        if (!this.foldTail || !unstarted(listingOf(doc, await this.foldTail(doc, tail, this.machinesBefore(doc))))) return false;
      }
      await this.removeFiles(id);
      return true;
    } catch {
      // Unreadable, or its files could not all be removed: it is listed as it is (and looked at again next time).
      return false;
    } finally {
      // Looked at, not opened: the lock file goes as it came (a session's own close leaves it released, in place).
      dropLock(lock);
    }
  }

  /** Removes a session's files while its lock is held, so no other process opens it half gone: its own files, its journal, the document last (it names the session). */
  private async removeFiles(id: string): Promise<void> {
    // runs/ is a folder troupe makes itself: through a link there (a cloned repository's `.troupe/runs -> ../..`),
    // the listing removed the user's folder named as a forged unstarted session. Refused, the session is kept.
    await ownFolder(join(this.dataDir, 'runs'));
    // Not rmSync: it recurses on the stack, and agents' workspaces can hold trees thousands of levels deep.
    await rm(this.filesOf(id), { recursive: true, force: true });
    rmSync(this.journalOf(id), { force: true });
    rmSync(sealingPathOf(this.journalOf(id)), { force: true });
    rmSync(join(this.dir, `.${id}.json.tmp`), { force: true });
    rmSync(this.slotsOf(id), { force: true });
    rmSync(this.pathOf(id), { force: true });
  }

  private indexFile(): DocumentFile<Index> {
    return new DocumentFile<Index>(join(this.dir, 'index.json'), { parse: (t) => JSON.parse(t) as Index, stringify: (d) => JSON.stringify(d) }, this.fs);
  }

  private readIndex(): Index {
    try {
      const parsed = this.indexFile().read();
      // Without a prototype: a session named __proto__ is one more entry, not the object's prototype.
      if (parsed && parsed.version === 2 && parsed.sessions && typeof parsed.sessions === 'object') return { version: 2, sessions: Object.assign(Object.create(null), parsed.sessions) };
    } catch {
      // missing or damaged: the index is a cache, rebuilt from the documents
    }
    return { version: 2, sessions: Object.create(null) };
  }

  private writeIndex(index: Index): void {
    try {
      new LowSync<Index>(this.indexFile(), index).write();
    } catch {
      // Best effort: the index is a cache (a stale entry is caught by its mtime); a failed write left no temp file.
    }
  }

  /**
   * Flushes the sessions directory's entries to the disk (a create or rename in it then survives a power failure),
   * through one handle on it kept open for the store's life: its open and close were two more calls on the thread
   * pool at every session's first pause, each waiting its turn behind every other session's fsyncs and renames.
   * Shared (SharedFlush): sessions that pause together flush the directory once, not once each. An injected file
   * system (tests) is called as syncDirectoryAsync calls it.
   */
  private syncSessions(): Promise<void> {
    return this.sessionsFlush.run();
  }

  /** One flush of the sessions directory (see syncSessions). */
  private flushSessions(): Promise<void> {
    if (this.fs !== NODE_DOCUMENT_FS) return syncDirectoryAsync(this.dir, this.fs);
    this.directory ??= new Promise<number>((resolve, reject) => open(this.dir, constants.O_RDONLY | constants.O_DIRECTORY, (error, fd) => (error ? reject(error) : resolve(fd))));
    const directory = this.directory;
    return directory
      .then((fd) => new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve()))))
      .catch((error: unknown) => {
        // Opened again by the next flush: a directory that failed once is not trusted for the next.
        if (this.directory === directory) this.forgetDirectory();
        throw error;
      });
  }

  /** Closes the sessions directory's handle, if one is open. */
  private forgetDirectory(): void {
    const directory = this.directory;
    this.directory = null;
    void directory?.then(
      (fd) => close(fd, () => undefined),
      () => undefined,
    );
  }

  private writer(path: string, end?: JournalEnd, created?: number): JournalWriter {
    const fs = asyncFs(this.fs);
    return new JournalWriter(path, end, fsyncOf(this.fs), (fd, p) => fs.fsync(fd, p), created);
  }

  private serialise(doc: SessionDocument): string {
    return redactedJson(doc, this.redact, this.indent || undefined);
  }

  /**
   * The handle of an open session. `created` is the descriptor of a document just created and not yet flushed to the
   * disk: it is flushed with the journal's first flush (or a checkpoint's), before the directory is flushed, and at
   * the latest on close. Checkpoints go to its slots (`slots.fd`, open for the session's life: a new session's is
   * `created` itself), each clear of the last one written (`slots.last`): a checkpoint makes and frees no file (see
   * checkpoint-slots.ts).
   */
  private handle(initial: SessionDocument, writer: JournalWriter, { path, lock }: SessionFiles, slots: OpenSlots, created: number | null = null): SessionHandle {
    const slotsPath = slots.path;
    const id = initial.id;
    const dataDir = this.dataDir;
    const redact = this.redact;
    // Schema 8 on: a step's line holds its input, not the events step() derives from it (stamped with the engine's semantics).
    const semantics = this.format.version >= REPLAYED_SINCE && this.stepEvents === 'replayed' ? ENGINE_SEMANTICS : undefined;
    const fsAsync = asyncFs(this.fs);
    let lastSlot = slots.last;
    // The document as last written, and as the next checkpoint builds on (the last one asked for).
    let written = initial;
    let latest = initial;
    // One checkpoint write (or journal flush) at a time: a later one starts once the one before it has settled.
    let writing: Promise<void> = Promise.resolve();
    const inTurn = (write: () => Promise<void>): Promise<void> => {
      const done = writing.then(write, write);
      writing = done.catch(() => undefined);
      trackWrite(done);
      return done;
    };
    const flushJournal = async () => {
      try {
        await writer.flush();
      } catch (error) {
        throw dataDirError(error, dataDir, `save session ${id} to ${writer.path}`);
      }
    };
    // The document as created, not yet on the disk: flushed beside the journal's flush (on the thread pool at once).
    let unflushed = created;
    const flushCreated = async () => {
      if (unflushed === null) return;
      try {
        await fsAsync.fsync(unflushed, path);
      } catch (error) {
        throw dataDirError(error, dataDir, `save session ${id} to ${path}`);
      }
      dropCreated();
    };
    // Closed without a flush: the document was removed, or (its own slots) flushed with a checkpoint; the slots' file closes with the session.
    const dropCreated = () => {
      if (unflushed === null) return;
      if (unflushed !== slots.fd) closeSync(unflushed);
      unflushed = null;
    };
    const flushBoth = () => Promise.all([flushJournal(), flushCreated()]);
    // Whether this handle has flushed the sessions directory (the journal's and the document's names are durable since).
    let directorySynced = false;
    let closed = false;
    return {
      id,
      location: path,
      get doc() {
        return written;
      },
      append(record) {
        if (closed) throw new Error(`session ${id} is closed`);
        try {
          writer.appendJson(redactedJson(slimRecord(record, id, semantics), redact), record.n);
        } catch (error) {
          throw dataDirError(error, dataDir, `save session ${id} to ${writer.path}`);
        }
      },
      vouch(sources) {
        latest = { ...latest, ...sources };
      },
      checkpoint: (checkpoint, meta, options = {}) => {
        if (closed) throw new Error(`session ${id} is closed`);
        if (checkpoint.records !== writer.records) throw new Error(`session ${id}: a checkpoint of ${checkpoint.records} journal lines, but the journal has ${writer.records}`);
        const next: SessionDocument = { ...latest, mode: meta.mode, brief: meta.brief || latest.brief, updatedAt: meta.updatedAt, checkpoint: { ...checkpoint, hash: writer.lastHash } };
        // Serialised now, on the caller's turn: what it was given may change once this returns. Encoded at once:
        // the bytes lie outside the JS heap, and the text dies young. Kept as text until the write (after the
        // journal's fsync, tens of milliseconds at 1,000 sessions), each document outlived a scavenge, was
        // copied and promoted, and was collected by a full GC.
        const text = Buffer.from(this.serialise(next));
        latest = next;
        return inTurn(async () => {
          // The journal lines the checkpoint covers reach the disk before the document that points past them (and the
          // document as created with them: the slots hold the checkpoint, the document names the session). Slots in the
          // document's own file flush it with theirs: a torn or lost slot leaves the document as created, which stands.
          const inCreated = unflushed !== null && unflushed === slots.fd;
          await (inCreated ? flushJournal() : flushBoth());
          try {
            const seq = (lastSlot?.seq ?? 0) + 1;
            const slot = encodeSlot(seq, slots.stamp, text);
            const offset = nextSlotOffset(lastSlot, slot.length);
            await fsAsync.writeAt(slots.fd, slot, offset, slotsPath);
            await fsAsync.fsync(slots.fd, slotsPath);
            if (inCreated) dropCreated();
            lastSlot = { offset, length: slot.length, seq };
            // The slots' name was made with the session: the directory is flushed once for it, as for the journal's.
            if (options.sync === true && !directorySynced) await this.syncSessions();
          } catch (error) {
            throw dataDirError(error, dataDir, `save session ${id} to ${slotsPath}`);
          }
          if (options.sync === true) directorySynced = true;
          written = next;
          refreshLockIfDue(lock);
        });
      },
      flush: (options = {}) => {
        if (closed) throw new Error(`session ${id} is closed`);
        return inTurn(async () => {
          await flushBoth();
          if (options.sync === true && !directorySynced) {
            try {
              await this.syncSessions();
            } catch (error) {
              throw dataDirError(error, dataDir, `save session ${id} to ${writer.path}`);
            }
            directorySynced = true;
          }
          refreshLockIfDue(lock);
        });
      },
      async close() {
        if (closed) return;
        closed = true;
        await writing;
        try {
          // A session closed before any flush (a fork's copy, a failed one) keeps its document as created, flushed here.
          await flushCreated();
        } finally {
          dropCreated();
          writer.close();
          closeSync(slots.fd);
          releaseLock(lock);
        }
      },
      discard: async () => {
        if (closed) return;
        closed = true;
        await writing;
        dropCreated();
        writer.close();
        closeSync(slots.fd);
        try {
          await this.removeFiles(id);
        } finally {
          // The session is gone: its lock file with it.
          dropLock(lock);
        }
      },
    };
  }
}

/** Closes and removes a file a failed create made. */
function dropFile(fd: number, path: string): void {
  closeSync(fd);
  rmSync(path, { force: true });
}

/** Where one session's files are. */
type SessionFiles = { path: string; journal: string; slots: string; lock: string };

/** The file a session's checkpoints are written into (its document, or the `<id>.checkpoint` of an earlier troupe's session) and where its newest slot lies. */
type LoadedSlots = { path: string; last: SlotAt | null };

/** That file open for the session's life, and the stamp its slots carry. */
type OpenSlots = LoadedSlots & { fd: number; stamp: string };

/** A file's mtime, or -1 when it is missing. */
function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/** A listing of a session that never started: idle, no brief, no turn (it holds nothing to resume or show). */
function unstarted(l: SessionListing): boolean {
  return l.status === 'idle' && l.turns === 0 && !l.brief.trim();
}

/** Whether a regular file of no bytes is at `path` itself (not a FIFO, not through a link). */
function emptyFile(path: string): boolean {
  const stat = lstatSync(path);
  return stat.isFile() && stat.size === 0;
}

/** The journal's size in bytes (-1 when it is missing: an old single-file session). */
function journalSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

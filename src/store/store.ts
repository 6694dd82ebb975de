import { resolve } from 'node:path';
import { UserError } from '../errors.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { SessionListing } from './listing.js';
import type { Checkpoint, JournalRecord, SessionDocument } from './session-file.js';

/** An open session: the one writer of its journal and document until closed. */
export interface SessionHandle {
  readonly id: string;
  /** Where the session lives (a file path, or "memory:<id>"). */
  readonly location: string;
  /** The session document as last written. */
  readonly doc: SessionDocument;
  /**
   * Appends one journal record, synchronously, sealed and chained to the line before; `record.n` must be
   * the next line's number. Throws when it could not be stored (nothing of it stays).
   */
  append(record: JournalRecord): void;
  /**
   * Replaces the checkpoint (and metadata) in the document. What it is given is serialised before it
   * returns; the write itself goes on off the event loop, one at a time (a call while one is in flight is
   * written after it), and the promise settles once it is done. It covers every line appended so far and
   * records the last one's hash; those lines are flushed to the disk (fsync) before the document is
   * replaced, so a power failure never leaves a checkpoint ahead of its journal. With `sync` the new
   * document itself is made durable too (at pauses and ends). Rejects when it could not be written (the
   * stored document stays the old one; the journal is untouched, so the session reopens from it).
   */
  checkpoint(checkpoint: Checkpoint, meta: Pick<SessionDocument, 'mode' | 'brief' | 'updatedAt'>, options?: { sync?: boolean }): Promise<void>;
  /**
   * Flushes the journal lines appended so far to the disk (fsync) without rewriting the document, in turn with
   * the checkpoints (after one in flight); with `sync` the directory too, so the journal's own name survives a
   * power failure (once per handle: a name made durable stays). Rejects when it could not be flushed.
   */
  flush(options?: { sync?: boolean }): Promise<void>;
  /**
   * Takes the sources the user named on resuming (the team directory, the workflow file) and their new seal into
   * the document: written with the next checkpoint, so the next resume trusts them without being told again.
   */
  vouch(sources: Pick<SessionDocument, 'team' | 'workflow' | 'seal'>): void;
  /** Releases the session for other processes, once a checkpoint write in flight has settled. */
  close(): Promise<void>;
  /** Removes a session that never started (it has no brief, so nothing to resume or show) and releases it. */
  discard?(): Promise<void>;
}

/** A session opened for writing: its handle, and the journal records after its checkpoint (to fold on top of it). */
export interface OpenedSession {
  handle: SessionHandle;
  tail: JournalRecord[];
  /** The newest events of the whole journal (at most `recentEvents` asked for), oldest first. */
  recent: TroupeEvent[];
}

/** A stored session read without opening it: its document and events, oldest first. */
export interface ReadSession {
  doc: SessionDocument;
  events: TroupeEvent[];
  /** Every journal record, oldest first (folding their inputs over `doc.base` replays the session). */
  records: JournalRecord[];
  /** Why the events step() derived are not among them from a journal line on (schema 8: they could not be replayed), in one line; absent when they all are. */
  replayGap?: string;
}

/** A summary line of a stored session, or why it cannot be read. */
export type StoredEntry = { id: string; location: string; listing: SessionListing; lockedBy: number | null } | { id: string; location: string; error: string };

/** Where sessions are kept: one document and one journal per session, one writer per session. */
export interface Store {
  /** Creates a new session and opens it for writing; fails if the id exists. */
  create(doc: SessionDocument): Promise<SessionHandle>;
  /** Opens an existing session for writing; refuses when another process has it open. */
  open(id: string, options?: { recentEvents?: number }): Promise<OpenedSession>;
  /** Reads a session without opening it (show, export, history). */
  read(id: string): Promise<ReadSession>;
  /** Reads a session's document alone (its journal neither read nor checked); without it, `read` gives it. */
  document?(id: string): Promise<SessionDocument>;
  /**
   * Every stored session, newest first; unreadable ones are listed with their error. Sessions `hosted` answers
   * true for run in the caller's process, which shows them as they run: their listing is their checkpoint's (the
   * journal lines after it are not folded).
   */
  list(options?: { hosted?: (id: string) => boolean }): Promise<StoredEntry[]>;
  /** The ids of every stored session (cheap: nothing is parsed). */
  ids(): Promise<string[]>;
  /** Where a session keeps its own files (agents' workspaces), when the store is on disk. */
  filesOf?(id: string): string;
  /** The process holding a session open (its pid), or null when none does (as `list` names it). */
  lockedBy?(id: string): number | null;
}

/** The data directory: TROUPE_DATA_DIR, else `.troupe/` in the working directory. */
export function dataDirFrom(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): string {
  const dir = env.TROUPE_DATA_DIR?.trim();
  return resolve(cwd, dir || '.troupe');
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Checks a session id is safe as a file name; throws a one-line UserError otherwise. */
export function checkId(id: string): string {
  if (!ID.test(id)) throw new UserError(`"${id}" is not a session id (letters, digits, - and _) — run troupe sessions to list them`);
  return id;
}

/** Resolves a full id or a unique prefix of one (like git), among the stored ids. */
export function matchId(wanted: string, ids: string[]): string {
  checkId(wanted);
  if (ids.includes(wanted)) return wanted;
  const hits = ids.filter((id) => id.startsWith(wanted));
  if (hits.length === 1) return hits[0]!;
  if (hits.length === 0) throw new UserError(`no session "${wanted}" — run troupe sessions to list them`);
  throw new UserError(`session prefix "${wanted}" matches ${hits.length} sessions (${hits.slice(0, 3).join(', ')}…) — type more of the id`);
}

/** Orders entries newest first by last update (unreadable ones last). */
export function newestFirst(entries: StoredEntry[]): StoredEntry[] {
  const time = (e: StoredEntry) => ('listing' in e ? e.listing.updatedAt : '');
  return [...entries].sort((a, b) => time(b).localeCompare(time(a)) || a.id.localeCompare(b.id));
}

/** The events of journal records, in order. */
export function eventsOf(records: readonly JournalRecord[]): TroupeEvent[] {
  return records.flatMap((r) => r.events as unknown as TroupeEvent[]);
}

import { resolve } from 'node:path';
import { UserError } from '../llm/errors.js';
import type { SessionFile } from './session-file.js';

/** An open session: the one writer of its file until closed. */
export interface SessionHandle {
  readonly id: string;
  /** Where the session lives (a file path, or "memory:<id>"). */
  readonly location: string;
  /** The current document; change it, then write(). */
  data: SessionFile;
  /** Persists `data` (atomically: the previous version stays intact until the new one is complete). */
  write(): Promise<void>;
  /** Waits for pending writes and releases the session for other processes. */
  close(): Promise<void>;
}

/** A summary line of a stored session, or why its file cannot be read. */
export type StoredEntry = { id: string; location: string; file: SessionFile; lockedBy: number | null } | { id: string; location: string; error: string };

/** Where sessions are kept: one document per session, one writer per document. */
export interface Store {
  /** Creates a new session and opens it for writing; fails if the id exists. */
  create(file: SessionFile): Promise<SessionHandle>;
  /** Opens an existing session for writing; refuses when another process has it open. */
  open(id: string): Promise<SessionHandle>;
  /** Reads a session without opening it (show, export). */
  read(id: string): Promise<SessionFile>;
  /** Every stored session, newest first; unreadable files are listed with their error. */
  list(): Promise<StoredEntry[]>;
  /** The ids of every stored session (cheap: no file is parsed). */
  ids(): Promise<string[]>;
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
  const time = (e: StoredEntry) => ('file' in e ? e.file.updatedAt : '');
  return [...entries].sort((a, b) => time(b).localeCompare(time(a)) || a.id.localeCompare(b.id));
}

import { UserError } from '../errors.js';
import { migrateV1 } from './migrate-v1.js';
import type { Migration } from './migration.js';
import { MAX_NESTING, tooDeep } from './nesting.js';
import { SESSION_SCHEMA_VERSION, SessionDocumentSchema, type SessionDocument } from './session-file.js';

/** A session file that cannot be loaded (corrupt, invalid or from a newer troupe); it is left untouched. */
export class SessionFileError extends UserError {}

/**
 * Version 3 seals and chains the journal's lines and records the hash of the last line a checkpoint
 * covers; the document is otherwise unchanged. The store seals a version-2 journal and fills in the
 * checkpoint's hash when it opens the session for writing; read-only, its lines are checked for their
 * numbers and against the checkpoint's line count.
 */
const migrateV2: Migration = (raw) => raw;

/**
 * Version 4 writes journal lines without what the file already says (see journal-codec.ts); the document
 * is unchanged. Lines written before stay as they are (a reader tells them apart), so the journal of an
 * older session goes on in the new form without being rewritten.
 */
const migrateV3: Migration = (raw) => raw;

/**
 * Version 5 writes an arbitration's decision packed (see decision-rows.ts); the document is unchanged and
 * older lines stay as they are (they list no packed events). The version tells an older troupe, which
 * would read packed proposals as they are, that the file is newer than it.
 */
const migrateV4: Migration = (raw) => raw;

/**
 * Version 6 writes one journal line per turn: a step's line holds the usage published just before it (counted
 * in `facts`) and the agent_started of the calls it starts, which were lines of their own. The document is
 * unchanged and older lines stay as they are; the version tells an older troupe, whose timeline would not
 * know the facts from the step, that the file is newer than it.
 */
const migrateV5: Migration = (raw) => raw;

/**
 * Version 7 writes an event of a usual layout as a row (see event-rows.ts); the document is unchanged and older
 * lines stay as they are (they hold no rows); the version tells an older troupe, which would skip the rows as
 * malformed events, that the file is newer than it.
 */
const migrateV6: Migration = (raw) => raw;

/**
 * Version 8 writes a step's line without the events step() derives from its input (see journal-codec.ts): a reader
 * replays them. The document is unchanged and older lines stay as they are (they keep their events); the version
 * tells an older troupe, which would read a line's derived events as none, that the file is newer than it.
 */
const migrateV7: Migration = (raw) => raw;

/** Migrations from each older schema version to the next (each has a fixture in tests/fixtures/sessions/). */
export const MIGRATIONS: Record<number, Migration> = { 1: migrateV1, 2: migrateV2, 3: migrateV3, 4: migrateV4, 5: migrateV5, 6: migrateV6, 7: migrateV7 };

/** A loaded file and the version it was stored at (lower than current when it was migrated). */
export interface Loaded {
  file: SessionDocument;
  storedVersion: number;
}

/** A file format: its version, the zod schema of that version and the migrations up to it. */
export interface FileFormat {
  version: number;
  schema: { safeParse(doc: unknown): { success: true; data: unknown } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } };
  migrations: Record<number, Migration>;
}

/** The format this build reads and writes. */
export const CURRENT_FORMAT: FileFormat = { version: SESSION_SCHEMA_VERSION, schema: SessionDocumentSchema, migrations: MIGRATIONS };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A session file's bytes as text; invalid UTF-8 is refused (never read as U+FFFD and written back). */
export function decodeSessionFile(bytes: Uint8Array, where: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new SessionFileError(`${where}: not valid UTF-8 — the file is corrupt; it was left as it is`);
  }
}

/** Parses, migrates and validates a session file's text; throws a one-line SessionFileError naming the file. */
export function parseSessionFile(text: string, where: string, format: FileFormat = CURRENT_FORMAT): Loaded {
  const { migrations, version: current } = format;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const why = (error as Error).message.split('\n')[0];
    throw new SessionFileError(`${where}: not valid JSON (${why}) — the file is corrupt; it was left as it is`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new SessionFileError(`${where}: not a troupe session file (expected a JSON object) — it was left as it is`);
  }
  if (tooDeep(raw)) throw new SessionFileError(`${where}: nests deeper than ${MAX_NESTING} levels — not a file troupe wrote; it was left as it is`);
  let doc = raw as Record<string, unknown>;
  const storedVersion = doc.schema;
  if (typeof storedVersion !== 'number' || !Number.isInteger(storedVersion) || storedVersion < 1) {
    throw new SessionFileError(`${where}: schema: missing or not a positive integer — not a troupe session file; it was left as it is`);
  }
  if (storedVersion > current) {
    throw new SessionFileError(`${where}: schema version ${storedVersion} is newer than this troupe supports (${current}) — upgrade troupe to open it; the file was left as it is`);
  }
  for (let v = storedVersion; v < current; v++) {
    const migrate = migrations[v];
    if (!migrate) throw new SessionFileError(`${where}: no migration from schema version ${v} to ${v + 1} — this file cannot be opened by this troupe`);
    doc = { ...migrate(doc), schema: v + 1 };
  }
  const parsed = format.schema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join('.') || '(root)';
    throw new SessionFileError(`${where}: ${field}: ${issue.message} — the file is corrupt or was edited by hand; it was left as it is`);
  }
  // Validated, but the document itself is kept: zod's output would reorder keys and drop nothing
  // useful, and a resumed snapshot must be byte-for-byte the state that was saved.
  return { file: doc as unknown as SessionDocument, storedVersion };
}

import { basename } from 'node:path';
import { restoreRecord, SlimRecordError } from './journal-codec.js';
import { MAX_STORE_FILE_BYTES } from './document-file.js';
import { SessionFileError } from './load-file.js';
import { CHAIN_START, hashOf, readSeal } from './journal-chain.js';
import { MAX_NESTING, tooDeep } from './nesting.js';
import type { JournalRecord, SessionDocument } from './session-file.js';

/** The schema version from which journal lines are sealed and chained. */
export const CHAINED_SINCE = 3;

/** What a journal must satisfy besides every line being a record. */
export interface JournalRules {
  /** Lines are sealed and chained (documents of schema 3 on); a version-2 journal is checked for its line numbers only. */
  chained: boolean;
  /** The checkpoint of the session document: the journal must reach its line, whose hash it recorded (chained journals). */
  checkpoint?: { records: number; hash?: string | undefined; document: string };
  /** The session the journal belongs to, whose id its events leave out from schema 4 on (default: the file's name without .jsonl). */
  sessionId?: string;
  /** Where a read that starts after line 1 starts: the lines and bytes before it, and the hash of its line before (the first line read must follow it). */
  from?: { lines: number; bytes: number; hash: string };
  /** The longest line read (default MAX_STORE_FILE_BYTES): a longer one is refused before it is read whole. */
  maxLineBytes?: number;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Checks a journal line by line, in order, as it is read: each line must be a record numbered after the
 * one before (no line repeated, missing or moved) and, in a chained journal, carry an intact seal whose
 * `prev` is the hash of the line before; the line the checkpoint ends at must be the one it recorded, and
 * the journal must reach it. A failure is one SessionFileError line naming the file, the line, what is
 * wrong and the fix. Pure apart from hashing; the caller reads the file.
 */
export class JournalCheck {
  /** Complete lines accepted so far. */
  lines = 0;
  /** Bytes of the accepted lines (where a cut after them would go). */
  bytes = 0;
  /** The hash of the last accepted line (CHAIN_START before the first). */
  lastHash = CHAIN_START;
  private readonly sessionId: string;

  constructor(
    private readonly path: string,
    private readonly rules: JournalRules,
  ) {
    this.sessionId = rules.sessionId ?? basename(path).replace(/\.jsonl$/, '');
    if (rules.from) ({ lines: this.lines, bytes: this.bytes, hash: this.lastHash } = rules.from);
    const cp = rules.checkpoint;
    if (rules.chained && cp && cp.hash === undefined) this.fail(`${cp.document}: checkpoint.hash: missing — the document was edited by hand or written by another program; it was left as it is`);
  }

  /** Refuses the next line once the part of it read so far (`bytes`) is longer than any line troupe writes. */
  growing(bytes: number): void {
    const max = this.rules.maxLineBytes ?? MAX_STORE_FILE_BYTES;
    if (bytes > max) this.damaged(this.lines + 1, `is longer than ${max} bytes, more than troupe writes in a line`);
  }

  /** Checks the next complete line (its bytes, without the newline) and returns its record. */
  next(bytes: Buffer): JournalRecord {
    const line = this.lines + 1;
    const seal = readSeal(bytes);
    // An unchained journal has no seals to compare: a repeated line is told by its bytes' hash.
    const lineHash = seal?.hash ?? hashOf(bytes);
    const record = this.parse(bytes, line);
    if (this.rules.chained) {
      if (!seal) this.damaged(line, 'carries no seal (prev and hash) — it was not written by troupe');
      else if (!seal.intact) this.damaged(line, 'was changed after it was written (its bytes do not match its hash)');
    }
    if (record.n !== line) {
      if (lineHash === this.lastHash && line > 1) this.damaged(line, `repeats line ${line - 1} (a duplicated record)`);
      else if (record.n > line) this.damaged(line, `holds record ${record.n} where record ${line} belongs — ${record.n - line === 1 ? 'a record is' : 'records are'} missing or out of order`);
      else this.damaged(line, `holds record ${record.n} where record ${line} belongs — a record is repeated or out of order`);
    }
    if (this.rules.chained && record.prev !== this.lastHash) {
      this.damaged(
        line,
        line === 1
          ? `does not start the chain (prev ${String(record.prev)}, expected ${CHAIN_START}) — lines before it are missing`
          : `does not follow line ${line - 1} (its prev ${String(record.prev)} is not line ${line - 1}'s hash ${this.lastHash}) — a line was replaced or comes from another journal`,
      );
    }
    const cp = this.rules.checkpoint;
    if (this.rules.chained && cp && line === cp.records && lineHash !== cp.hash) {
      this.fail(
        `${this.path}: line ${line} is not the line the checkpoint in ${cp.document} ends at (hash ${lineHash}, recorded ${cp.hash}) — the journal was rewritten under its checkpoint; restore it from a backup; it was left as it is`,
      );
    }
    this.lines = line;
    this.bytes += bytes.length + 1;
    this.lastHash = lineHash;
    return record;
  }

  /** Checks the journal, read to its end, reaches its checkpoint. */
  end(): void {
    const cp = this.rules.checkpoint;
    if (cp && this.lines < cp.records) {
      const lost = this.lines + 1 === cp.records ? `line ${cp.records} is` : `lines ${this.lines + 1}–${cp.records} are`;
      this.fail(
        `${this.path}: ends at line ${this.lines}, but the checkpoint in ${cp.document} covers ${cp.records} lines — ${lost} missing (the journal was cut or replaced); restore it from a backup; it was left as it is`,
      );
    }
    if (this.rules.chained && cp && cp.records === 0 && cp.hash !== CHAIN_START) {
      this.fail(`${cp.document}: checkpoint.hash: ${String(cp.hash)} covers no line and must be ${CHAIN_START} — the document was edited by hand; it was left as it is`);
    }
  }

  private parse(bytes: Buffer, line: number): JournalRecord {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return this.damaged(line, 'is not valid UTF-8');
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return this.damaged(line, `is not valid JSON (${(error as Error).message.split('\n')[0]})`);
    }
    if (tooDeep(value)) return this.damaged(line, `nests deeper than ${MAX_NESTING} levels — not a record troupe wrote`);
    const record = value as Partial<JournalRecord> | null;
    if (!record || typeof record !== 'object' || typeof record.n !== 'number' || !Array.isArray(record.events)) {
      return this.damaged(line, 'is not a journal record (expected n and events)');
    }
    try {
      return restoreRecord(record as JournalRecord, this.sessionId);
    } catch (error) {
      if (error instanceof SlimRecordError) return this.damaged(line, error.message);
      throw error;
    }
  }

  /** Refuses the journal for a bad line, with the fix: cut the journal before it when that keeps what the checkpoint covers. */
  private damaged(line: number, what: string): never {
    const cp = this.rules.checkpoint;
    const covered = cp?.records ?? 0;
    const fix =
      line > covered
        ? `to go on without line ${line} and the lines after it, cut the journal there (truncate -s ${this.bytes} ${this.path})`
        : `restore it from a backup (the checkpoint in ${cp!.document} covers lines 1–${covered})`;
    return this.fail(`${this.path}: line ${line} ${what} — the journal is damaged; ${fix}; it was left as it is`);
  }

  private fail(message: string): never {
    throw new SessionFileError(message);
  }
}

/** What a session's journal is checked against: sealed lines from schema 3 on, and the checkpoint (a version-1 file has no journal yet). */
export function journalRules(doc: SessionDocument, storedVersion: number, document: string): JournalRules {
  const chained = storedVersion >= CHAINED_SINCE;
  if (storedVersion < 2) return { chained, sessionId: doc.id };
  return { chained, sessionId: doc.id, checkpoint: { records: doc.checkpoint.records, hash: doc.checkpoint.hash, document } };
}

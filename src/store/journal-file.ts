import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { SessionFileError } from './load-file.js';
import { MAX_NESTING, tooDeep } from './nesting.js';
import type { JournalRecord } from './session-file.js';
import { TroupeError } from '../errors.js';

const CHUNK = 1 << 20;
const decoder = new TextDecoder('utf-8', { fatal: true });

/** What reading a journal found: how many complete lines, and where the complete part ends (a torn last line is left out). */
export interface JournalScan {
  records: number;
  /** Byte length of the complete lines; a torn write after it is ignored (and cut off by the writer). */
  validBytes: number;
  torn: boolean;
}

/**
 * Reads a journal line by line without holding the file in memory: each complete line is parsed and
 * handed to `onRecord`. A line that is not valid UTF-8 or JSON is refused with one line naming the file
 * and line, except a last line without its newline, which is a write the process did not finish.
 */
export function scanJournal(path: string, onRecord: (record: JournalRecord, line: number) => void): JournalScan {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: 0, validBytes: 0, torn: false };
    throw error;
  }
  try {
    if (fstatSync(fd).isDirectory()) throw new SessionFileError(`${path} is a directory, not a journal — move it out of the way`);
    const buffer = Buffer.allocUnsafe(CHUNK);
    let carry: Buffer = Buffer.alloc(0);
    let offset = 0;
    let validBytes = 0;
    let line = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, offset);
      if (read === 0) break;
      offset += read;
      let data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
        line += 1;
        onRecord(parseLine(data.subarray(start, nl), path, line), line);
        validBytes += nl - start + 1;
        start = nl + 1;
      }
      carry = Buffer.from(data.subarray(start));
      data = Buffer.alloc(0);
    }
    return { records: line, validBytes, torn: carry.length > 0 };
  } finally {
    closeSync(fd);
  }
}

function parseLine(bytes: Buffer, path: string, line: number): JournalRecord {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new SessionFileError(`${path}: line ${line} is not valid UTF-8 — the journal is corrupt; it was left as it is`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SessionFileError(`${path}: line ${line} is not valid JSON (${(error as Error).message.split('\n')[0]}) — the journal is corrupt; it was left as it is`);
  }
  if (tooDeep(value)) throw new SessionFileError(`${path}: line ${line} nests deeper than ${MAX_NESTING} levels — not a record troupe wrote; the journal was left as it is`);
  const record = value as Partial<JournalRecord> | null;
  if (!record || typeof record !== 'object' || typeof record.n !== 'number' || !Array.isArray(record.events)) {
    throw new SessionFileError(`${path}: line ${line} is not a journal record (expected n and events) — the journal is corrupt; it was left as it is`);
  }
  return record as JournalRecord;
}

/** A journal write that failed: nothing of the record stayed in the file. */
export class JournalWriteError extends TroupeError {}

/**
 * The writing end of a journal: one synchronous append per record, so a record is in the operating
 * system's hands before the step's effects run (a crash of the process loses nothing written); `sync()`
 * also asks the disk to keep it (fsync), which the session does at pauses and checkpoints.
 */
export class JournalWriter {
  private readonly fd: number;
  private size: number;

  constructor(readonly path: string, validBytes?: number) {
    this.fd = openSync(path, 'a+');
    this.size = fstatSync(this.fd).size;
    // A torn last line (the process died mid-write) is cut off so the next record starts on a line of its own.
    if (validBytes !== undefined && validBytes < this.size) {
      ftruncateSync(this.fd, validBytes);
      this.size = validBytes;
    }
  }

  /** Appends one record as a line; on failure the file is cut back to where it was and the error is thrown. */
  append(record: JournalRecord): void {
    this.appendJson(JSON.stringify(record));
  }

  /** Appends one record already serialised as JSON (one line, no newline in it). */
  appendJson(json: string): void {
    const line = `${json}\n`;
    const length = Buffer.byteLength(line);
    try {
      // The string is written as it is (no Buffer made per line); a short write, rare on a file, goes on from a copy.
      let written = writeSync(this.fd, line, this.size);
      if (written < length) {
        const bytes = Buffer.from(line);
        while (written < length) written += writeSync(this.fd, bytes, written, length - written, this.size + written);
      }
      this.size += length;
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // the cut may fail on the same full disk; the reader ignores a torn last line
      }
      throw error;
    }
  }

  /** Flushes what was appended to the disk. */
  sync(): void {
    fsyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}

import { closeSync, constants, fstatSync, open, fsyncSync, ftruncateSync, readSync, writeSync } from 'node:fs';
import { CHAIN_START, sealedLineMaxBytes, sealLineInto } from './journal-chain.js';
import { JournalCheck, type JournalRules } from './journal-check.js';
import { openOwnFile } from './own-file.js';
import type { JournalRecord } from './session-file.js';
import { TroupeError } from '../errors.js';

const CHUNK = 1 << 20;
// The largest line buffer the writers keep between lines.
const SCRATCH_MAX = 1 << 20;
// Lines are sealed into this buffer (grown when a line needs more) and written from it, synchronously: one
// buffer for every writer of the process, not 64 KiB per session (a server holds a writer per session).
let scratch = Buffer.allocUnsafe(64 * 1024);

/** What reading a journal found: how many complete lines, where they end (a torn last line is left out) and the last one's hash. */
export interface JournalScan {
  records: number;
  /** Byte length of the complete lines; a torn write after it is ignored (and cut off by the writer). */
  validBytes: number;
  torn: boolean;
  /** The hash of the last complete line (CHAIN_START when there is none): the next line's `prev`. */
  lastHash: string;
}

/**
 * Reads a journal line by line without holding the file in memory: each complete line is checked (see
 * JournalCheck: a record, numbered in order, sealed and chained when `rules.chained`, reaching the
 * checkpoint) and handed to `onRecord` with its bytes. A bad line is refused with one line naming the file
 * and line, except a last line without its newline, which is a write the process did not finish.
 */
export function scanJournal(path: string, onRecord: (record: JournalRecord, line: number, bytes: Buffer) => void, rules: JournalRules = { chained: true }): JournalScan {
  const check = new JournalCheck(path, rules);
  let fd: number;
  try {
    fd = openOwnFile(path, constants.O_RDONLY, 'a journal');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    check.end();
    return { records: 0, validBytes: 0, torn: false, lastHash: CHAIN_START };
  }
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    // The start of a line whose newline has not come yet, one copied piece per chunk read: joined once, when
    // the newline comes (joining each chunk to all of the line before made a long line cost its square).
    const pending: Buffer[] = [];
    let pendingBytes = 0;
    let offset = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, offset);
      if (read === 0) break;
      offset += read;
      const data = buffer.subarray(0, read);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
        let bytes = data.subarray(start, nl);
        check.growing(pendingBytes + bytes.length);
        if (pending.length > 0) {
          bytes = Buffer.concat([...pending, bytes]);
          pending.length = 0;
          pendingBytes = 0;
        }
        onRecord(check.next(bytes), check.lines, bytes);
        start = nl + 1;
      }
      if (start < read) {
        // A line that never ends is refused once it is longer than any troupe writes, not read whole first
        // (a 600 MB line took 1.27 GB and was then called "not valid UTF-8").
        pendingBytes += read - start;
        check.growing(pendingBytes);
        pending.push(Buffer.from(data.subarray(start)));
      }
    }
    const carry = { length: pending.reduce((sum, piece) => sum + piece.length, 0) };
    check.end();
    return { records: check.lines, validBytes: check.bytes, torn: carry.length > 0, lastHash: check.lastHash };
  } finally {
    closeSync(fd);
  }
}

/** Creates a new empty journal off the event loop (it must not exist: EEXIST) and gives its descriptor, for a JournalWriter. */
export function createJournal(path: string): Promise<number> {
  return new Promise((resolve, reject) => open(path, 'ax+', (error, fd) => (error ? reject(error) : resolve(fd))));
}

/** A journal write that failed: nothing of the record stayed in the file. */
export class JournalWriteError extends TroupeError {}

/** Flushes an open file to the disk; `path` names it (tests check the order of writes through it). */
export type Fsync = (fd: number, path: string) => void;

/** The same flush, off the event loop. */
export type FsyncAsync = (fd: number, path: string) => Promise<void>;

/** Where a writer continues a journal: the scan of its complete lines. */
export type JournalEnd = Pick<JournalScan, 'records' | 'validBytes' | 'lastHash'>;

/**
 * The writing end of a journal: one synchronous append per record, sealed and chained to the line before
 * (so a record is in the operating system's hands before the step's effects run: a crash of the process
 * loses nothing written); `sync()` asks the disk to keep what was appended (fsync), which the store does
 * before every checkpoint that covers it.
 */
export class JournalWriter {
  private readonly fd: number;
  private size: number;
  private lines: number;
  private last: string;
  private unsynced = false;

  private flushing: Promise<void> | null = null;

  /**
   * Opens `path` to append after `end` (a fresh journal when absent); a torn last line after it is cut off.
   * With `created`, the file is a new empty journal opened by `createJournal` (its descriptor).
   */
  constructor(
    readonly path: string,
    end?: JournalEnd,
    private readonly fsync: Fsync = (fd) => fsyncSync(fd),
    private readonly fsyncAsync: FsyncAsync = async (fd, p) => this.fsync(fd, p),
    created?: number,
  ) {
    this.fd = created ?? openOwnFile(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 'a journal');
    this.size = created !== undefined ? 0 : fstatSync(this.fd).size;
    this.lines = end?.records ?? 0;
    this.last = end?.lastHash ?? CHAIN_START;
    if (!end && this.size > 0) {
      closeSync(this.fd);
      throw new Error(`journal ${path} is not empty: pass where its complete lines end`);
    }
    const valid = end?.validBytes ?? 0;
    // A torn last line (the process died mid-write) is cut off so the next record starts on a line of its own.
    if (valid < this.size) {
      ftruncateSync(this.fd, valid);
      this.size = valid;
    }
    // Lines a process that died wrote may still be only in the page cache: the first checkpoint flushes them too.
    this.unsynced = this.size > 0;
  }

  /** Complete lines in the journal. */
  get records(): number {
    return this.lines;
  }

  /** The hash of the last line (CHAIN_START when there is none): what a checkpoint covering every line records. */
  get lastHash(): string {
    return this.last;
  }

  /** Appends one record as a line; on failure the file is cut back to where it was and the error is thrown. */
  append(record: JournalRecord): void {
    this.appendJson(JSON.stringify(record), record.n);
  }

  /** Appends one record already serialised as JSON (an object on one line) whose `n` is `n`: it must be the next line. */
  appendJson(json: string, n: number): void {
    if (n !== this.lines + 1) throw new Error(`journal ${this.path}: record ${n} appended after line ${this.lines}`);
    const need = sealedLineMaxBytes(json);
    if (need > scratch.length && need <= SCRATCH_MAX) scratch = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(need, 2 * scratch.length)));
    // A rare huge line gets a buffer of its own, so the writers do not keep one that size.
    const bytes = need <= scratch.length ? scratch : Buffer.allocUnsafe(need);
    const sealed = sealLineInto(json, this.last, bytes, 0);
    const length = sealed.end;
    try {
      // A short write, rare on a file, goes on from where it stopped.
      let written = writeSync(this.fd, bytes, 0, length, this.size);
      while (written < length) written += writeSync(this.fd, bytes, written, length - written, this.size + written);
      this.size += length;
      this.lines += 1;
      this.last = sealed.hash;
      this.unsynced = true;
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // the cut may fail on the same full disk; the reader ignores a torn last line
      }
      throw error;
    }
  }

  /** Flushes what was appended since the last flush to the disk (nothing to do when nothing was). */
  sync(): void {
    if (!this.unsynced) return;
    this.fsync(this.fd, this.path);
    this.unsynced = false;
  }

  /**
   * Flushes what was appended so far to the disk off the event loop (appends go on meanwhile: they are the
   * next flush's); resolves once every line appended before the call is on the disk.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined);
    if (!this.unsynced) return;
    this.unsynced = false;
    this.flushing = this.fsyncAsync(this.fd, this.path);
    try {
      await this.flushing;
    } catch (error) {
      this.unsynced = true;
      throw error;
    } finally {
      this.flushing = null;
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

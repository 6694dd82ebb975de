import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { CHAIN_START, sealedLineMaxBytes, sealLineInto } from './journal-chain.js';
import { JournalCheck, type JournalRules } from './journal-check.js';
import { SessionFileError } from './load-file.js';
import type { JournalRecord } from './session-file.js';
import { TroupeError } from '../errors.js';

const CHUNK = 1 << 20;
// The largest line buffer the writers keep between lines.
const SCRATCH_MAX = 1 << 20;
// Lines are sealed into this buffer (grown when a line needs more) and written from it, synchronously: one
// buffer for every writer of the process, not 64 KiB per session (a server holds a writer per session).
let scratch = Buffer.allocUnsafe(64 * 1024);
// Whether no writer holds staged lines in it (one that finds it taken stages into a buffer of its own).
let scratchFree = true;

/** Writes bytes of a file at a position (tests inject one that fails or counts). */
export type WriteAt = (fd: number, buffer: Buffer, offset: number, length: number, position: number) => number;

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
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    check.end();
    return { records: 0, validBytes: 0, torn: false, lastHash: CHAIN_START };
  }
  try {
    if (fstatSync(fd).isDirectory()) throw new SessionFileError(`${path} is a directory, not a journal — move it out of the way`);
    const buffer = Buffer.allocUnsafe(CHUNK);
    let carry: Buffer = Buffer.alloc(0);
    let offset = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, offset);
      if (read === 0) break;
      offset += read;
      let data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
        const bytes = data.subarray(start, nl);
        onRecord(check.next(bytes), check.lines, bytes);
        start = nl + 1;
      }
      carry = Buffer.from(data.subarray(start));
      data = Buffer.alloc(0);
    }
    check.end();
    return { records: check.lines, validBytes: check.bytes, torn: carry.length > 0, lastHash: check.lastHash };
  } finally {
    closeSync(fd);
  }
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
 * The writing end of a journal: records are appended synchronously (staged lines go in one write), sealed and chained to the line before
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
  // The staged lines: the group buffer and how many bytes of it; what the file holds without them.
  private group: Buffer | null = null;
  private pending = 0;
  private saved: { lines: number; last: string };

  private flushing: Promise<void> | null = null;

  /** Opens `path` to append after `end` (a fresh journal when absent); a torn last line after it is cut off. */
  constructor(
    readonly path: string,
    end?: JournalEnd,
    private readonly fsync: Fsync = (fd) => fsyncSync(fd),
    private readonly fsyncAsync: FsyncAsync = async (fd, p) => this.fsync(fd, p),
    private readonly write: WriteAt = writeSync,
  ) {
    this.fd = openSync(path, 'a+');
    this.size = fstatSync(this.fd).size;
    this.lines = end?.records ?? 0;
    this.last = end?.lastHash ?? CHAIN_START;
    this.saved = { lines: this.lines, last: this.last };
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

  /** Lines in the journal, staged ones included. */
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

  /** Appends one record already serialised as JSON (an object on one line) whose `n` is `n`: it must be the next line. Lines staged before it are written with it. */
  appendJson(json: string, n: number): void {
    this.stage(json, n);
    this.commit();
  }

  /**
   * Seals one record (serialised as JSON, its `n` the next line's) after the lines staged before it, without
   * writing it: `commit()` writes the staged lines in one write (group commit). `records` and `lastHash`
   * count staged lines.
   */
  stage(json: string, n: number): void {
    if (n !== this.lines + 1) throw new Error(`journal ${this.path}: record ${n} appended after line ${this.lines}`);
    const need = this.pending + sealedLineMaxBytes(json);
    this.reserve(need);
    const sealed = sealLineInto(json, this.last, this.group!, this.pending);
    this.pending = sealed.end;
    this.lines += 1;
    this.last = sealed.hash;
  }

  /** True while staged lines wait for `commit()`. */
  get staged(): boolean {
    return this.pending > 0;
  }

  /**
   * Writes the staged lines in one write (nothing to do when none are). On failure the file is cut back to
   * where it was before them, the staged lines are dropped and the error is thrown.
   */
  commit(): void {
    const length = this.pending;
    if (length === 0) {
      if (this.group) this.release();
      return;
    }
    const bytes = this.group!;
    try {
      // A short write, rare on a file, goes on from where it stopped.
      let written = this.write(this.fd, bytes, 0, length, this.size);
      while (written < length) written += this.write(this.fd, bytes, written, length - written, this.size + written);
      this.size += length;
      this.saved = { lines: this.lines, last: this.last };
      this.unsynced = true;
    } catch (error) {
      this.lines = this.saved.lines;
      this.last = this.saved.last;
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // the cut may fail on the same full disk; the reader ignores a torn last line
      }
      throw error;
    } finally {
      this.release();
    }
  }

  // A buffer for the group, holding `need` bytes (the pending ones kept): the shared one when it is free.
  private reserve(need: number): void {
    if (!this.group) {
      if (scratchFree && need <= SCRATCH_MAX) {
        scratchFree = false;
        if (need > scratch.length) scratch = Buffer.allocUnsafe(Math.min(SCRATCH_MAX, Math.max(need, 2 * scratch.length)));
        this.group = scratch;
      } else this.group = Buffer.allocUnsafe(Math.max(need, 4096));
      return;
    }
    if (need <= this.group.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(need, 2 * this.group.length));
    this.group.copy(bigger, 0, 0, this.pending);
    if (this.group === scratch && bigger.length <= SCRATCH_MAX) scratch = bigger;
    else if (this.group === scratch) scratchFree = true;
    this.group = bigger;
  }

  private release(): void {
    this.pending = 0;
    if (this.group === scratch) scratchFree = true;
    this.group = null;
  }

  /** Flushes what was appended since the last flush to the disk (nothing to do when nothing was). */
  sync(): void {
    this.commit();
    if (!this.unsynced) return;
    this.fsync(this.fd, this.path);
    this.unsynced = false;
  }

  /**
   * Flushes what was appended so far to the disk off the event loop (appends go on meanwhile: they are the
   * next flush's); resolves once every line appended before the call is on the disk.
   */
  async flush(): Promise<void> {
    // Staged lines are not waited for: a checkpoint committed those it covers when it was taken.
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

  /** Writes the staged lines (a failure is thrown, the file closed all the same) and closes the file. */
  close(): void {
    try {
      this.commit();
    } finally {
      closeSync(this.fd);
    }
  }
}

import { closeSync, constants, fstatSync, readSync } from 'node:fs';
import { CHAIN_START, sealEnding } from './journal-chain.js';
import { JournalCheck } from './journal-check.js';
import { openOwnFile } from './own-file.js';
import type { JournalRecord } from './session-file.js';

const CHUNK = 64 * 1024;
// One search buffer for the process (a listing reads a thousand journals): a fresh 64 KiB buffer per journal
// was page faults and garbage, more than the reads themselves.
let window: Buffer | null = null;

/** Where a journal's tail is: the offset after the line sealed with the hash, and the bytes from there on already read (a view of `window`, good until the next search; the rest is read after them). */
interface Found {
  offset: number;
  bytes: Buffer;
}

/**
 * Finds the end of the line sealed with `hash` in an open journal (the byte after its newline), searched from
 * the file's end backwards (a checkpoint is near the end: one is due every 256 lines); null when no line ends so.
 */
function endOfLineSealed(fd: number, size: number, hash: string): Found | null {
  if (hash === CHAIN_START) return { offset: 0, bytes: Buffer.alloc(0) };
  const ending = sealEnding(hash);
  window ??= Buffer.allocUnsafe(CHUNK + ending.length);
  const buffer = window;
  // A closed session's checkpoint covers every line: its journal's last bytes say so, without reading a chunk.
  const last = buffer.subarray(0, ending.length);
  if (size >= ending.length && readSync(fd, last, 0, ending.length, size - ending.length) === ending.length && last.equals(ending)) return { offset: size, bytes: Buffer.alloc(0) };
  // Each read keeps the first bytes of the chunk after it, so an ending across two chunks is found.
  let end = size;
  let kept = 0;
  while (end > 0) {
    const start = Math.max(0, end - CHUNK);
    const n = end - start;
    buffer.copy(buffer, n, 0, kept);
    if (readSync(fd, buffer, 0, n, start) !== n) return null;
    const at = buffer.subarray(0, n + kept).lastIndexOf(ending);
    if (at >= 0) {
      const after = at + ending.length;
      // Found in the last chunk (the usual case): the tail is already read (a view of the window, read before the next search).
      return { offset: start + after, bytes: end === size ? buffer.subarray(after, n) : Buffer.alloc(0) };
    }
    kept = Math.min(ending.length - 1, n);
    end = start;
  }
  return null;
}

/**
 * Reads the lines of a chained journal after the one its checkpoint ends at (sealed with `from.hash`, line
 * `from.records`), without reading or checking the lines before it: the line is found by its seal from the
 * file's end, and each line after it is checked as scanJournal checks it (numbered after `from.records`, its seal
 * intact, chained from `from.hash`). Returns those records, or null when no line ends with that seal (the
 * journal was cut, rewritten or is gone: opening the session names it); a damaged line after it throws scanJournal's error.
 * A torn last line (a write the process did not finish) is left out.
 */
export function journalTailAfter(path: string, from: { records: number; hash: string }, sessionId: string): JournalRecord[] | null {
  let fd: number;
  try {
    // As scanJournal opens it: no link followed, never a FIFO or device (a listing on serve's event loop would hang).
    fd = openOwnFile(path, constants.O_RDONLY, 'a journal');
  } catch (error) {
    // No journal holds nothing after a checkpoint of nothing (as scanJournal reads a missing one: no lines).
    return (error as NodeJS.ErrnoException).code === 'ENOENT' && from.records === 0 ? [] : null;
  }
  try {
    const size = fstatSync(fd).size;
    const found = endOfLineSealed(fd, size, from.hash);
    if (!found) return null;
    const records: JournalRecord[] = [];
    const { offset } = found;
    if (offset === size) return records;
    const check = new JournalCheck(path, { chained: true, sessionId, from: { lines: from.records, bytes: offset, hash: from.hash } });
    // Found in the last chunk, the tail is read already; found further back, it is read whole from there.
    let data = found.bytes;
    if (offset + data.length < size) {
      data = Buffer.allocUnsafe(size - offset);
      let got = 0;
      while (got < data.length) {
        const n = readSync(fd, data, got, data.length - got, offset + got);
        if (n === 0) break;
        got += n;
      }
      data = data.subarray(0, got);
    }
    let start = 0;
    for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
      records.push(check.next(data.subarray(start, nl)));
      start = nl + 1;
    }
    return records;
  } finally {
    closeSync(fd);
  }
}

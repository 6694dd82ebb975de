import { closeSync, constants, readSync } from 'node:fs';
import { openOwnFile } from './own-file.js';
import { JournalRecordSchema, type JournalRecord } from './session-file.js';

// How a machine line starts (journal-codec writes `n` first, then `machine`): `{"n":<digits>` then MARK.
const OPEN = Buffer.from('{"n":');
const MARK = Buffer.from(',"machine":{');
// One buffer for the process, grown to the largest journal read (a listing reads many).
let buffer: Buffer | null = null;
// Machine lines read, by their length and seal (the line's last bytes), kept with their bytes: a listing of a thousand
// sessions of one team meets the same line a thousand times (a creation's machine line holds no id or time), and
// the one record (whose config object recordedMachine knows) saves decoding, parsing and hashing it again.
const seen = new Map<string, { bytes: Buffer; record: JournalRecord | null }>();
const SEEN_MOST = 64;

/**
 * The machine lines among a journal's first `lines` lines (see MachineLines), found in its bytes without parsing
 * or checking the others: what a reader of the lines after a checkpoint needs of those before it (the listing).
 * A line that is not of its shape is left out (its replay then has no machine); none when there is no journal.
 */
export function machineLinesIn(path: string, lines: number): JournalRecord[] {
  if (lines <= 0) return [];
  let fd: number;
  try {
    fd = openOwnFile(path, constants.O_RDONLY, 'a journal');
  } catch {
    return [];
  }
  // Read to its end without a stat (a Stats object per journal cost more than the read in a listing of a thousand).
  let size = 0;
  try {
    buffer ??= Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      if (size === buffer.length) {
        const grown = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(grown, 0, 0, size);
        buffer = grown;
      }
      const want = buffer.length - size;
      const n = readSync(fd, buffer, size, want, size);
      size += n;
      // A regular file reads short only at its end: no read more to be told so.
      if (n < want) break;
    }
  } finally {
    closeSync(fd);
  }
  const data = buffer.subarray(0, size);
  const found: JournalRecord[] = [];
  // Line by line (a newline is found fast; a key inside a string has its quotes escaped, so only a line's start can be one).
  for (let start = 0; start < size; ) {
    const newline = data.indexOf(10, start);
    const end = newline < 0 ? size : newline;
    const n = machineLineNumber(data, start, end);
    if (n !== null) {
      if (n > lines) break;
      const line = data.subarray(start, end);
      const key = `${line.length}:${line.toString('latin1', Math.max(0, line.length - 18))}`;
      let known = seen.get(key);
      if (!known?.bytes.equals(line)) {
        known = { bytes: Buffer.from(line), record: machineRecord(line.toString('utf8')) };
        if (seen.size >= SEEN_MOST) seen.clear();
        seen.set(key, known);
      }
      if (known.record) found.push(known.record);
    }
    start = end + 1;
  }
  return found;
}

/** The number of the machine line at data[start, end) (`{"n":<digits>,"machine":{…`), or null when it is another line. */
function machineLineNumber(data: Buffer, start: number, end: number): number | null {
  if (end - start < OPEN.length + 1 + MARK.length || data.compare(OPEN, 0, OPEN.length, start, start + OPEN.length) !== 0) return null;
  let at = start + OPEN.length;
  let n = 0;
  while (at < end && at - start < OPEN.length + 9 && data[at]! >= 48 && data[at]! <= 57) n = n * 10 + data[at++]! - 48;
  if (at === start + OPEN.length || at + MARK.length > end || data.compare(MARK, 0, MARK.length, at, at + MARK.length) !== 0) return null;
  return n;
}

/** A machine line's record (its number, its machine), or null when the line is not of its shape (torn, damaged). */
function machineRecord(text: string): JournalRecord | null {
  try {
    const line = JSON.parse(text) as { n: unknown; machine: unknown };
    const record = JournalRecordSchema.safeParse({ n: line.n, events: [], machine: line.machine });
    return record.success ? record.data : null;
  } catch {
    return null;
  }
}

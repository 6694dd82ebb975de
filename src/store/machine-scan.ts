import { closeSync, constants, readSync } from 'node:fs';
import { openOwnFile } from './own-file.js';
import { JournalRecordSchema, type JournalRecord } from './session-file.js';

// What follows a machine line's number (journal-codec writes `n` first, then `machine`): `,"machine":{`, searched by
// its word (V8 finds a 7-byte needle several times faster than the 12 bytes), the bytes around it checked. Quotes
// inside a JSON string are escaped: unescaped these bytes are a key, and right after a line's `{"n":<digits>` only a
// machine line's.
const WORD = Buffer.from('machine');
const BEFORE = Buffer.from(',"');
const AFTER = Buffer.from('":{');
const LINE_START = /(?:^|\n)\{"n":(\d{1,9})$/;
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
  // One search of the bytes (a search per line, or a compare, cost more native calls than the bytes cost to search).
  for (let word = data.indexOf(WORD); word >= 0; word = data.indexOf(WORD, word + WORD.length)) {
    const at = word - BEFORE.length;
    if (at < 0 || data[at] !== BEFORE[0] || data[at + 1] !== BEFORE[1] || data[word + 7] !== AFTER[0] || data[word + 8] !== AFTER[1] || data[word + 9] !== AFTER[2]) continue;
    const from = Math.max(0, at - 16);
    const head = LINE_START.exec(data.toString('latin1', from, at));
    // At a line's start: after a newline, or at the file's.
    if (!head || (head[0][0] !== '\n' && at - head[0].length !== 0)) continue;
    const n = Number(head[1]);
    if (n > lines) break;
    const start = at - head[0].length + (head[0][0] === '\n' ? 1 : 0);
    const newline = data.indexOf(10, at);
    const line = data.subarray(start, newline < 0 ? size : newline);
    const key = `${line.length}:${line.toString('latin1', Math.max(0, line.length - 18))}`;
    let known = seen.get(key);
    if (!known?.bytes.equals(line)) {
      known = { bytes: Buffer.from(line), record: machineRecord(line.toString('utf8')) };
      if (seen.size >= SEEN_MOST) seen.clear();
      seen.set(key, known);
    }
    if (known.record) found.push(known.record);
  }
  return found;
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

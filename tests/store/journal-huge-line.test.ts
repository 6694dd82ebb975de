import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { scanJournal } from '../../src/store/journal-file.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// Probe of the journal reader with a huge line (a hand-made journal, or a write cut off in a long line): every
// reader scans the journal (troupe sessions' tail fold, show, export, resume). Measured on this machine, load ~8:
// a torn last line of 32 MiB took 0.94 s of CPU to scan, 64 MiB 3.5 s, 128 MiB 13.4 s: four times the time for
// twice the line.

const temp = tempDirPerTest('troupe-huge-line-');
const MiB = 1 << 20;

/** A journal holding one line of `mib` MiB without its newline. */
function tornJournal(mib: number): string {
  const path = join(temp(), 's.jsonl');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(MiB, 0x61);
  for (let i = 0; i < mib; i++) writeSync(fd, chunk);
  closeSync(fd);
  return path;
}

describe('reading a journal with a huge line costs the line, not its square', () => {
  // Cause: scanJournal (src/store/journal-file.ts) reads 1 MiB at a time and, while no newline comes, joins each
  // chunk to all the line read so far with Buffer.concat: a line of n chunks copies about n²/2 MiB.
  it.fails('a torn last line of 24 MiB is scanned copying at most a few times its size', () => {
    const path = tornJournal(24);
    const concat = vi.spyOn(Buffer, 'concat');
    try {
      const scan = scanJournal(path, () => {});
      expect(scan).toMatchObject({ records: 0, validBytes: 0, torn: true });
      const copied = concat.mock.results.reduce((sum, r) => sum + ((r.value as Buffer | undefined)?.length ?? 0), 0);
      // Before: 24 + 23 + ... + 2 MiB, about 300 MiB copied for a 24 MiB line.
      expect(copied).toBeLessThanOrEqual(4 * 24 * MiB);
    } finally {
      concat.mockRestore();
    }
  });
});

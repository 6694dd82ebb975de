import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalWriter } from '../../src/store/journal-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const record = (n: number, text: string) => ({ n, seq: n, type: 'input', input: { type: 'USER_MESSAGE', text } }) as never;

describe('journal writers of many sessions', () => {
  it('share one line buffer: 300 open writers hold no buffer each (a server holds a writer per session)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-scratch-'));
    dirs.push(dir);
    const before = process.memoryUsage().arrayBuffers;
    const writers = Array.from({ length: 300 }, (_, i) => new JournalWriter(join(dir, `${i}.jsonl`)));
    for (const [i, w] of writers.entries()) w.append(record(1, `hello ${i}`));
    const held = process.memoryUsage().arrayBuffers - before;
    for (const w of writers) w.close();
    // One 64 KiB buffer per writer was 300 x 64 KiB = 18.75 MiB (counted by V8 as external memory, which drives its GCs).
    expect(held).toBeLessThan(4 * 1024 * 1024);
  });

  it('interleaved writers each write their own lines, a huge line between them too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-scratch-'));
    dirs.push(dir);
    const a = new JournalWriter(join(dir, 'a.jsonl'));
    const b = new JournalWriter(join(dir, 'b.jsonl'));
    const huge = 'x'.repeat(200_000);
    a.append(record(1, 'a1'));
    b.append(record(1, huge));
    a.append(record(2, 'a2'));
    b.append(record(2, 'b2'));
    a.close();
    b.close();
    const lines = (file: string) =>
      readFileSync(join(dir, file), 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { input: { text: string } }).input.text);
    expect(lines('a.jsonl')).toEqual(['a1', 'a2']);
    expect(lines('b.jsonl')).toEqual([huge, 'b2']);
  });
});

import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAIN_START, sealLine } from '../../src/store/journal-chain.js';
import { scanJournal } from '../../src/store/journal-file.js';
import { journalTailAfter } from '../../src/store/journal-tail.js';
import { SessionFileError } from '../../src/store/load-file.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { foldStoredTail } from '../../src/session/stored-tail.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { SessionDocument } from '../../src/store/session-file.js';
import type { StoredEntry } from '../../src/store/store.js';
import { statesOf, uninterrupted } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'troupe-jtail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A sealed journal of records with `pad` characters of text each (sizes vary, so seals fall on every offset of a chunk); its lines' hashes. */
function journal(name: string, lines: number, pad: (n: number) => number): { path: string; hashes: string[] } {
  const path = join(dir, `${name}.jsonl`);
  let prev = CHAIN_START;
  const hashes: string[] = [];
  let text = '';
  for (let n = 1; n <= lines; n++) {
    const sealed = sealLine(JSON.stringify({ n, events: [{ type: 'note', seq: n, at: 't', text: 'x'.repeat(pad(n)) }] }), prev);
    text += `${sealed.line}\n`;
    hashes.push(sealed.hash);
    prev = sealed.hash;
  }
  writeFileSync(path, text);
  return { path, hashes };
}

const numbers = (records: { n: number }[] | null) => records?.map((r) => r.n) ?? null;

describe('journalTailAfter: the lines after a checkpoint, read from its seal on', () => {
  it('gives what scanJournal gives after every line of a real session journal', async () => {
    const store = new MemoryStore();
    await uninterrupted(store, 'real');
    const path = join(dir, 'real.jsonl');
    writeFileSync(path, `${store.copy('real')!.journal.join('\n')}\n`);
    const all: unknown[] = [];
    const hashes: string[] = [];
    scanJournal(path, (record) => {
      all.push(record);
      hashes.push(record.hash!);
    });
    expect(all.length).toBeGreaterThan(10);
    for (let k = 0; k <= all.length; k++) {
      const from = { records: k, hash: k === 0 ? CHAIN_START : hashes[k - 1]! };
      expect(journalTailAfter(path, from, 'real')).toEqual(all.slice(k));
    }
  });

  it('finds a seal that straddles a 64 KiB read, in journals of lines of every size', () => {
    // Lines of 1-70 KiB: the seals land on both sides of every chunk boundary, and inside lines longer than a chunk.
    const { path, hashes } = journal('sizes', 60, (n) => ((n * 7919) % 70) * 1024 + n);
    for (let k = 1; k <= hashes.length; k++) expect(numbers(journalTailAfter(path, { records: k, hash: hashes[k - 1]! }, 'sizes'))).toEqual(Array.from({ length: 60 - k }, (_, i) => k + 1 + i));
  });

  it('finds the seal when the 64 KiB read from the end splits it, at every split point', () => {
    const line = (pad: number) => sealLine(JSON.stringify({ n: 2, events: [{ type: 'note', seq: 2, at: 't', text: 'x'.repeat(pad) }] }), 'ffffffffffffffff').line.length + 1;
    const base = line(0);
    // The ending is `,"hash":"<16 digits>"}` and its newline: 28 bytes, split after each of its first 27.
    for (let split = 1; split < 28; split++) {
      const { path, hashes } = journal(`split${split}`, 2, (n) => (n === 1 ? 100 : 64 * 1024 - split - base));
      const size = readFileSync(path).length;
      expect(size - 64 * 1024).toBe(readFileSync(path, 'utf8').indexOf('\n') + 1 - split);
      expect(numbers(journalTailAfter(path, { records: 1, hash: hashes[0]! }, 'split'))).toEqual([2]);
    }
  });

  it('null when the seal is in no line (another journal, a cut one, none at all); a torn last line is left out', () => {
    const { path, hashes } = journal('torn', 6, () => 10);
    expect(journalTailAfter(path, { records: 3, hash: 'fedcba9876543210' }, 'torn')).toBeNull();
    expect(journalTailAfter(join(dir, 'missing.jsonl'), { records: 3, hash: hashes[2]! }, 'missing')).toBeNull();
    // A checkpoint of nothing and no journal (a session removed half way before its first line): nothing after it.
    expect(journalTailAfter(join(dir, 'missing.jsonl'), { records: 0, hash: CHAIN_START }, 'missing')).toEqual([]);
    appendFileSync(path, '{"n":7,"events":[],"prev":"');
    expect(numbers(journalTailAfter(path, { records: 4, hash: hashes[3]! }, 'torn'))).toEqual([5, 6]);
    expect(numbers(journalTailAfter(path, { records: 6, hash: hashes[5]! }, 'torn'))).toEqual([]);
  });

  it('refuses a damaged line after the checkpoint as scanJournal does, and does not read the lines before it', () => {
    const { path, hashes } = journal('damaged', 8, () => 20);
    const lines = readFileSync(path, 'utf8').split('\n');
    // A changed byte in line 2 (covered by a checkpoint at line 5) is not read; one in line 7 is named.
    const early = [...lines];
    early[1] = early[1]!.replace('xxxx', 'xyxx');
    writeFileSync(path, early.join('\n'));
    expect(numbers(journalTailAfter(path, { records: 5, hash: hashes[4]! }, 'damaged'))).toEqual([6, 7, 8]);
    const late = [...lines];
    late[6] = late[6]!.replace('xxxx', 'xyxx');
    writeFileSync(path, late.join('\n'));
    expect(() => journalTailAfter(path, { records: 5, hash: hashes[4]! }, 'damaged')).toThrow(SessionFileError);
    expect(() => journalTailAfter(path, { records: 5, hash: hashes[4]! }, 'damaged')).toThrow(/line 7 was changed after it was written/);
    // A checkpoint that says another line number than its seal's line: the next line is out of order.
    writeFileSync(path, lines.join('\n'));
    expect(() => journalTailAfter(path, { records: 3, hash: hashes[4]! }, 'damaged')).toThrow(/line 4 holds record 6/);
    // A line from another journal after the checkpoint's: its prev is not the checkpoint's line.
    const other = journal('other', 8, () => 21);
    const spliced = [...lines.slice(0, 5), readFileSync(other.path, 'utf8').split('\n')[5]!, ''];
    writeFileSync(path, spliced.join('\n'));
    expect(() => journalTailAfter(path, { records: 5, hash: hashes[4]! }, 'damaged')).toThrow(/line 6 does not follow line 5/);
  });
});

describe('a listing of a crashed session reads its journal from the checkpoint on', () => {
  it('folds the lines after it whatever the lines before it hold, and shows the checkpoint when a line after it is damaged', async () => {
    const data = mkdtempSync(join(dir, 'store-'));
    const store = new LowdbStore(data, { foldTail: async (d, t) => foldStoredTail(d, t) });
    const run = await uninterrupted(store, 'crashed');
    const read = await store.read('crashed');
    // As if it crashed with its last checkpoint at line 5.
    const at5 = statesOf(read.doc, read.records.slice(0, 5)).at(-1)!;
    const doc: SessionDocument = { ...read.doc, checkpoint: { ...read.doc.checkpoint, records: 5, hash: read.records[4]!.hash!, snapshot: at5, usage: null, transitions: {} } };
    writeFileSync(store.pathOf('crashed'), JSON.stringify(doc));
    const journal = readFileSync(store.journalOf('crashed'), 'utf8').split('\n');
    const after5 = read.events.filter((e) => e.type === 'usage' && read.records.findIndex((r) => r.events.some((x) => x.seq === e.seq)) >= 5);
    const tokens = after5.reduce((n, e) => n + (e.type === 'usage' ? e.prompt_tokens + e.completion_tokens : 0), 0);
    const listing = async () => {
      rmSync(join(data, 'sessions', 'index.json'), { force: true });
      const e = (await store.list()).find((x): x is Extract<StoredEntry, { listing: unknown }> => x.id === 'crashed' && 'listing' in x)!;
      return { status: e.listing.status, turns: e.listing.turns, tokens: e.listing.tokens };
    };
    expect(tokens).toBeGreaterThan(0);
    expect(at5.status).not.toBe(run.final.status);
    expect(await listing()).toEqual({ status: run.final.status, turns: run.final.turn, tokens });
    // A changed byte in line 2, under the checkpoint: not read by the listing (opening the session names it).
    writeFileSync(store.journalOf('crashed'), journal.map((l, i) => (i === 1 ? l.replace('"n":2', '"n":2 ') : l)).join('\n'));
    expect(await listing()).toEqual({ status: run.final.status, turns: run.final.turn, tokens });
    // The same in line 8, after it: the listing shows the checkpoint.
    writeFileSync(store.journalOf('crashed'), journal.map((l, i) => (i === 7 ? l.replace('"n":8', '"n":8 ') : l)).join('\n'));
    expect(await listing()).toEqual({ status: at5.status, turns: at5.turn, tokens: 0 });
  });
});

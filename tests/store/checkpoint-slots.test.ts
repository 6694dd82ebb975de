import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeSlot, newestSlot, nextSlotOffset, SLOT_ALIGN, slotAt } from '../../src/store/checkpoint-slots.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { SessionFileError } from '../../src/store/load-file.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { uninterrupted } from './support.js';

const temp = tempDirPerTest('troupe-slots-');
const STAMP = '12.345.678901';

/** A checkpoint file's bytes with `slots` written in turn, each where the writer puts it. */
function written(bodies: string[]): Buffer {
  let file = Buffer.alloc(0);
  let last: { offset: number; length: number; seq: number } | null = null;
  bodies.forEach((body, i) => {
    const slot = encodeSlot(i + 1, STAMP, Buffer.from(body));
    const offset = nextSlotOffset(last, slot.length);
    const grown = Buffer.alloc(Math.max(file.length, offset + slot.length));
    file.copy(grown);
    slot.copy(grown, offset);
    file = grown;
    last = { offset, length: slot.length, seq: i + 1 };
  });
  return file;
}

describe('checkpoint slots (src/store/checkpoint-slots.ts)', () => {
  it('two slots alternate while the document stays small; a larger one goes past the last, never over it', () => {
    expect(nextSlotOffset(null, 100)).toBe(0);
    expect(nextSlotOffset({ offset: 0, length: 100, seq: 1 }, 100)).toBe(SLOT_ALIGN);
    expect(nextSlotOffset({ offset: SLOT_ALIGN, length: 100, seq: 2 }, 100)).toBe(0);
    // Too big for the room before the last: past its end, at a power of two.
    expect(nextSlotOffset({ offset: SLOT_ALIGN, length: 100, seq: 2 }, SLOT_ALIGN + 1)).toBe(2 * SLOT_ALIGN);
    expect(nextSlotOffset({ offset: 0, length: 3 * SLOT_ALIGN, seq: 3 }, 10)).toBe(4 * SLOT_ALIGN);
    const bodies = ['{"a":1}', '{"a":2}', `{"a":"${'x'.repeat(9000)}"}`, '{"a":4}', '{"a":5}'];
    const file = written(bodies);
    expect(newestSlot(file)?.body.toString()).toBe('{"a":5}');
    expect(newestSlot(file)?.seq).toBe(5);
    expect(newestSlot(file)?.stamp).toBe(STAMP);
  });

  it('a torn slot (any prefix of it written over the old bytes) is passed over: the one before stands', () => {
    const before = written(['{"a":1}', '{"a":2}']);
    const next = encodeSlot(3, STAMP, Buffer.from('{"a":3,"b":"three"}'));
    const at = nextSlotOffset({ offset: SLOT_ALIGN, length: encodeSlot(2, STAMP, Buffer.from('{"a":2}')).length, seq: 2 }, next.length);
    expect(at).toBe(0);
    for (let cut = 0; cut < next.length; cut++) {
      const torn = Buffer.from(before);
      next.copy(torn, at, 0, cut);
      expect(newestSlot(torn)?.body.toString(), `cut at ${cut}`).toBe('{"a":2}');
    }
    const whole = Buffer.from(before);
    next.copy(whole, at);
    expect(newestSlot(whole)?.body.toString()).toBe('{"a":3,"b":"three"}');
  });

  it('hostile bytes read as no slot, never a throw: a length past the end, a changed byte, a header alone, garbage', () => {
    const slot = encodeSlot(1, STAMP, Buffer.from('{"a":1}'));
    expect(slotAt(slot, 0)?.seq).toBe(1);
    expect(slotAt(Buffer.from(slot.toString().replace(' 7 ', ' 9999999999 ')), 0)).toBeNull();
    const changed = Buffer.from(slot);
    changed[changed.length - 2] = 0x32;
    expect(slotAt(changed, 0)).toBeNull();
    expect(slotAt(slot.subarray(0, slot.indexOf('\n') + 1), 0)).toBeNull();
    expect(newestSlot(Buffer.from('not a checkpoint at all\n'.repeat(1000)))).toBeNull();
    expect(newestSlot(Buffer.alloc(3 * SLOT_ALIGN))).toBeNull();
  });
});

describe('a session checkpoints into its slots and loads from them', () => {
  it('makes no file and removes none after its create: the same four files, the same inodes, from the first checkpoint to the last', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    const sessions = join(data, 'sessions');
    const inodes = () => ['json', 'jsonl', 'checkpoint', 'lock'].map((ext) => statSync(join(sessions, `run.${ext}`)).ino);
    await uninterrupted(store, 'run');
    const first = inodes();
    // Opened again (the released lock taken over in place), run on and closed.
    const { handle } = await store.open('run');
    await handle.checkpoint(handle.doc.checkpoint, { mode: handle.doc.mode, brief: handle.doc.brief, updatedAt: '2026-01-01T00:00:00.000Z' }, { sync: true });
    await handle.close();
    expect(inodes()).toEqual(first);
    expect((await store.document('run')).updatedAt).toBe('2026-01-01T00:00:00.000Z');
  });

  it('torn at every point of its next checkpoint (a kill -9 mid-write), it loads the one before and resumes', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    await uninterrupted(store, 'torn');
    const path = store.slotsOf('torn');
    const good = readFileSync(path);
    const last = newestSlot(good)!;
    const doc = await store.document('torn');
    const next = encodeSlot(last.seq + 1, last.stamp, Buffer.from(JSON.stringify({ ...doc, brief: 'never whole' })));
    const at = nextSlotOffset(last, next.length);
    for (const cut of [1, 20, next.indexOf('\n') + 1, next.length >> 1, next.length - 1]) {
      writeFileSync(path, good);
      const fd = openSync(path, 'r+');
      writeSync(fd, next, 0, cut, at);
      closeSync(fd);
      expect((await store.document('torn')).brief, `cut at ${cut}`).toBe(doc.brief);
      const { handle } = await store.open('torn');
      expect(handle.doc.checkpoint.records).toBe(doc.checkpoint.records);
      await handle.close();
    }
  });

  it('a session of a troupe from before slots (no checkpoint file) loads from its document and gets its slots at its first open', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    await uninterrupted(store, 'old');
    const doc = await store.document('old');
    // As an older troupe left it: its last checkpoint in the document, renamed into place; no slots.
    rmSync(store.slotsOf('old'));
    writeFileSync(store.pathOf('old'), JSON.stringify(doc));
    expect(await store.document('old')).toEqual(doc);
    const { handle } = await store.open('old');
    await handle.checkpoint(doc.checkpoint, { mode: doc.mode, brief: 'from the slots', updatedAt: doc.updatedAt });
    await handle.close();
    expect(statSync(store.slotsOf('old')).size).toBeGreaterThan(0);
    expect((await store.document('old')).brief).toBe('from the slots');
    // The document rewritten later (by hand, or by that older troupe) is newer than the slots, and loads.
    writeFileSync(store.pathOf('old'), JSON.stringify({ ...doc, brief: 'edited by hand' }));
    expect((await store.document('old')).brief).toBe('edited by hand');
  });

  it('a hostile checkpoint file: one line naming it, never a crash (a link, a FIFO, a directory, a whole slot that is no document)', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    await uninterrupted(store, 'h');
    const path = store.slotsOf('h');
    const stamp = newestSlot(readFileSync(path))!.stamp;
    rmSync(path);
    writeFileSync(join(data, 'victim'), 'a file of the user');
    symlinkSync(join(data, 'victim'), path);
    await expect(store.document('h')).rejects.toThrow(`${path} is a link, not a checkpoint file — move it out of the way`);
    rmSync(path);
    execFileSync('mkfifo', [path]);
    await expect(store.open('h')).rejects.toThrow(SessionFileError);
    rmSync(path);
    mkdirSync(path);
    await expect(store.read('h')).rejects.toThrow(/is a directory, not a checkpoint file/);
    rmSync(path, { recursive: true });
    writeFileSync(path, encodeSlot(7, stamp, Buffer.from('{"schema":7,"id":"h"')));
    await expect(store.document('h')).rejects.toThrow(new RegExp(`^${path} \\(checkpoint 7\\): `));
    expect(readFileSync(join(data, 'victim'), 'utf8')).toBe('a file of the user');
  });

  it('a new session whose slots name holds a link is refused in one line, and leaves none of its files (the link stays, not followed)', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    mkdirSync(join(data, 'sessions'), { recursive: true });
    writeFileSync(join(data, 'victim'), 'a file of the user');
    symlinkSync(join(data, 'victim'), store.slotsOf('planted'));
    await expect(uninterrupted(store, 'planted')).rejects.toThrow(`${store.slotsOf('planted')} is a link, not a checkpoint file — move it out of the way`);
    expect(readdirSync(join(data, 'sessions')).sort()).toEqual(['planted.checkpoint']);
    expect(readFileSync(join(data, 'victim'), 'utf8')).toBe('a file of the user');
    // Left by a session of that id that is gone, a file there is emptied: its old slots never load as the new session's.
    rmSync(store.slotsOf('planted'));
    writeFileSync(store.slotsOf('planted'), encodeSlot(99, '1.2.3', Buffer.from('{"stale":true}')));
    await uninterrupted(store, 'planted');
    expect((await store.document('planted')).id).toBe('planted');
    expect(newestSlot(readFileSync(store.slotsOf('planted')))!.seq).toBeLessThan(99);
  });
});

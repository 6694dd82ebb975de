import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createdSlot, documentInFile, documentStamp, encodeSlot, newestSlot, nextSlotOffset, OWN_FILE_STAMP, SLOT_ALIGN, slotAt } from '../../src/store/checkpoint-slots.js';
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

  it('in its own document file: the document as created stands until a whole slot is written clear of it (a NUL ends it), torn at any point', () => {
    for (const created of ['{"a":0}', `{"a":"${'x'.repeat(SLOT_ALIGN + 10)}"}`]) {
      const slot = encodeSlot(1, OWN_FILE_STAMP, Buffer.from('{"a":1}'));
      const at = nextSlotOffset(createdSlot(created.length), slot.length);
      expect(at).toBeGreaterThan(created.length);
      expect(documentInFile(Buffer.from(created)).body.toString()).toBe(created);
      expect(documentInFile(Buffer.from(created)).last).toEqual(createdSlot(created.length));
      for (let cut = 0; cut < slot.length; cut++) {
        const torn = Buffer.alloc(at + cut);
        torn.write(created);
        slot.copy(torn, at, 0, cut);
        expect(documentInFile(torn).body.toString(), `cut at ${cut}`).toBe(created);
      }
      const whole = Buffer.alloc(at + slot.length);
      whole.write(created);
      slot.copy(whole, at);
      expect(documentInFile(whole).body.toString()).toBe('{"a":1}');
      expect(documentInFile(whole).last).toEqual({ offset: at, length: slot.length, seq: 1 });
    }
  });
});

/** Opens a stored session, writes a checkpoint of it with `brief` and closes it. */
async function checkpointWith(store: LowdbStore, id: string, brief: string): Promise<void> {
  const { handle } = await store.open(id);
  await handle.checkpoint(handle.doc.checkpoint, { mode: handle.doc.mode, brief, updatedAt: handle.doc.updatedAt });
  await handle.close();
}

/** A session's document rewritten whole (by hand, or by an older troupe) is newer than its slots: it is what loads. */
async function expectEditedLoads(store: LowdbStore, id: string, doc: object): Promise<void> {
  writeFileSync(store.pathOf(id), JSON.stringify({ ...doc, brief: 'edited by hand' }));
  expect((await store.document(id)).brief).toBe('edited by hand');
}

describe('a session checkpoints into its slots and loads from them', () => {
  it('makes three files at its create, and no file after it, removing none: the same inodes from the first checkpoint to the last', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    const sessions = join(data, 'sessions');
    const inodes = () => ['json', 'jsonl', 'lock'].map((ext) => statSync(join(sessions, `run.${ext}`)).ino);
    await uninterrupted(store, 'run');
    const first = inodes();
    // Opened again (the released lock taken over in place), run on and closed.
    const { handle } = await store.open('run');
    await handle.checkpoint(handle.doc.checkpoint, { mode: handle.doc.mode, brief: handle.doc.brief, updatedAt: '2026-01-01T00:00:00.000Z' }, { sync: true });
    await handle.close();
    expect(inodes()).toEqual(first);
    expect(
      readdirSync(sessions)
        .filter((f) => f.startsWith('run.'))
        .sort(),
    ).toEqual(['run.json', 'run.jsonl', 'run.lock']);
    expect((await store.document('run')).updatedAt).toBe('2026-01-01T00:00:00.000Z');
  });

  it('torn at every point of its next checkpoint (a kill -9 mid-write), it loads the one before and resumes', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    await uninterrupted(store, 'torn');
    const path = store.pathOf('torn');
    const good = readFileSync(path);
    const { last } = documentInFile(good);
    expect(last.seq).toBeGreaterThan(0);
    const doc = await store.document('torn');
    const next = encodeSlot(last.seq + 1, OWN_FILE_STAMP, Buffer.from(JSON.stringify({ ...doc, brief: 'never whole' })));
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

  it('a session of a troupe from before slots (its document alone) loads from its document and writes its slots into it', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    await uninterrupted(store, 'old');
    const doc = await store.document('old');
    // As an older troupe left it: its last checkpoint in the document, renamed into place; no slots.
    writeFileSync(store.pathOf('old'), JSON.stringify(doc));
    expect(await store.document('old')).toEqual(doc);
    await checkpointWith(store, 'old', 'from the slots');
    expect(existsSync(store.slotsOf('old'))).toBe(false);
    expect(newestSlot(readFileSync(store.pathOf('old')))?.seq).toBe(1);
    expect((await store.document('old')).brief).toBe('from the slots');
    await expectEditedLoads(store, 'old', doc);
  });

  it('a session of an earlier troupe with its slots in <id>.checkpoint loads from them and goes on writing there', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    await uninterrupted(store, 'earlier');
    const doc = await store.document('earlier');
    // As the troupe before this one left it: the document as created, its checkpoints in <id>.checkpoint, stamped with the document's.
    writeFileSync(store.pathOf('earlier'), JSON.stringify({ ...doc, brief: 'as created' }));
    const stamp = documentStamp(statSync(store.pathOf('earlier'), { bigint: true }));
    writeFileSync(store.slotsOf('earlier'), encodeSlot(3, stamp, Buffer.from(JSON.stringify({ ...doc, brief: 'checkpoint 3' }))));
    const created = readFileSync(store.pathOf('earlier'));
    expect((await store.document('earlier')).brief).toBe('checkpoint 3');
    await checkpointWith(store, 'earlier', 'checkpoint 4');
    expect(readFileSync(store.pathOf('earlier'))).toEqual(created);
    expect(newestSlot(readFileSync(store.slotsOf('earlier')))?.seq).toBe(4);
    expect((await store.document('earlier')).brief).toBe('checkpoint 4');
    await expectEditedLoads(store, 'earlier', doc);
  });

  it('a hostile checkpoint file: one line naming it, never a crash (a link, a FIFO, a directory, a whole slot that is no document)', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    await uninterrupted(store, 'h');
    const path = store.slotsOf('h');
    const stamp = documentStamp(statSync(store.pathOf('h'), { bigint: true }));
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
    rmSync(path);
    // A slot in the document's own file that is no document.
    const own = readFileSync(store.pathOf('h'));
    const bad = encodeSlot(documentInFile(own).last.seq + 1, OWN_FILE_STAMP, Buffer.from('{"schema":7,"id":"h"'));
    const fd = openSync(store.pathOf('h'), 'r+');
    writeSync(fd, bad, 0, bad.length, nextSlotOffset(documentInFile(own).last, bad.length));
    closeSync(fd);
    await expect(store.document('h')).rejects.toThrow(new RegExp(`^${store.pathOf('h')} \\(checkpoint \\d+\\): `));
    expect(readFileSync(join(data, 'victim'), 'utf8')).toBe('a file of the user');
  });

  it('a link at the checkpoint-file name of a new session is never followed: the session is made, and loading it names the link in one line', async () => {
    const data = temp();
    const store = new LowdbStore(data);
    mkdirSync(join(data, 'sessions'), { recursive: true });
    writeFileSync(join(data, 'victim'), 'a file of the user');
    symlinkSync(join(data, 'victim'), store.slotsOf('planted'));
    await expect(uninterrupted(store, 'planted')).rejects.toThrow(`${store.slotsOf('planted')} is a link, not a checkpoint file — move it out of the way`);
    expect(readFileSync(join(data, 'victim'), 'utf8')).toBe('a file of the user');
    // Left by a session of that id that is gone, a file there never loads as the new session's: its stamp is another document's.
    rmSync(join(data, 'sessions'), { recursive: true });
    mkdirSync(join(data, 'sessions'));
    writeFileSync(store.slotsOf('planted'), encodeSlot(99, '1.2.3', Buffer.from('{"stale":true}')));
    await uninterrupted(store, 'planted');
    expect((await store.document('planted')).id).toBe('planted');
  });
});

import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';

/**
 * A session's checkpoints, written in place into one file: each a slot
 * (a header line `troupe-checkpoint <seq> <length> <stamp> <hash>` and the document's bytes) at offset 0 or at a power
 * of two from SLOT_ALIGN on, never over the slot written last. A write torn by a crash leaves a slot whose hash does
 * not match, and the one before it stands; the slot with the highest seq is the checkpoint. `stamp` is that of
 * `<id>.json` as the slot was written (see documentStamp): a document changed since (edited by hand, or rewritten by
 * a troupe from before slots) is newer than the slots, and is what loads. A checkpoint written by
 * a temp file renamed over the document freed an inode per checkpoint, and on an ext4 without a journal every inode
 * freed makes the next creates scan for it (at 1,000 sessions, a quarter of the server's CPU in the kernel).
 *
 * Sessions made since write their slots into their document's own file (`<id>.json`, see documentInFile): the
 * document as created stays at offset 0 until a slot supersedes it, so a session makes three files, not four (each
 * create on that ext4 scans past the inodes freed lately: a fifth of the server's CPU at 1,000 sessions). Sessions
 * made before keep `<id>.checkpoint` (made with the session, or as a session of an older troupe was opened).
 */
export const SLOT_ALIGN = 4096;

/** Where a slot lies in its file: its offset, its length with its header, and its seq. */
export interface SlotAt {
  offset: number;
  length: number;
  seq: number;
}

/** A slot read back: where it lies, the stamp of the document it supersedes, and the document's bytes. */
export interface CheckpointSlot extends SlotAt {
  stamp: string;
  body: Buffer;
}

/** What tells a document file changed: its inode, size and mtime (in ns). */
export function documentStamp(stat: BigIntStats): string {
  return `${stat.ino}.${stat.size}.${stat.mtimeNs}`;
}

const HEADER = /^troupe-checkpoint (\d{1,15}) (\d{1,10}) ([0-9.]{5,80}) ([0-9a-f]{16})\n/;
// The longest header the pattern allows.
const HEADER_MAX = 'troupe-checkpoint   \n'.length + 15 + 10 + 80 + 16;

function hashOf(seq: number, stamp: string, body: Uint8Array): string {
  return createHash('sha256').update(`${seq} ${body.length} ${stamp}\n`).update(body).digest('hex').slice(0, 16);
}

/** A slot's bytes: its header line and the document's bytes. */
export function encodeSlot(seq: number, stamp: string, body: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`troupe-checkpoint ${seq} ${body.length} ${stamp} ${hashOf(seq, stamp, body)}\n`), body]);
}

/**
 * Where the next slot of `length` bytes goes: at 0 when it ends before the last one written begins, else at the first
 * power of two (SLOT_ALIGN at least) past its end. Two slots alternate once the document stops growing.
 */
export function nextSlotOffset(last: SlotAt | null, length: number): number {
  if (last === null) return 0;
  if (length <= last.offset) return 0;
  let offset = SLOT_ALIGN;
  while (offset < last.offset + last.length) offset *= 2;
  return offset;
}

/** The slot a header at `offset` of `bytes` announces (its hash not yet checked), or null when there is none or it runs past the end. */
function announcedAt(bytes: Buffer, offset: number): { slot: CheckpointSlot; hash: string } | null {
  const head = HEADER.exec(bytes.subarray(offset, offset + HEADER_MAX).toString('latin1'));
  if (!head) return null;
  const start = offset + head[0].length;
  const end = start + Number(head[2]);
  if (end > bytes.length) return null;
  return { slot: { offset, length: end - offset, seq: Number(head[1]), stamp: head[3]!, body: bytes.subarray(start, end) }, hash: head[4]! };
}

const whole = (a: { slot: CheckpointSlot; hash: string }): boolean => hashOf(a.slot.seq, a.slot.stamp, a.slot.body) === a.hash;

/** The whole slot at `offset` of `bytes`, or null when there is none or it is torn (its hash does not match). */
export function slotAt(bytes: Buffer, offset: number): CheckpointSlot | null {
  const announced = announcedAt(bytes, offset);
  return announced && whole(announced) ? announced.slot : null;
}

/**
 * How many slots newestSlot hashes at most. Crashes leave at most two torn slots above the newest whole one: every
 * retry after a crash writes the same seq clear of that whole slot, at offset 0 or at the one power of two past its
 * end (nextSlotOffset), so two torn and the whole one are three.
 */
export const MAX_SLOTS_HASHED = 3;

/**
 * The newest whole slot of a checkpoint file's bytes (highest seq; of equal seqs the first), or null when it holds
 * none. Headers are read first and hashes checked from the highest seq down, stopping at the first whole one: a
 * file's own checkpoint costs one hash, not one per slot (a hostile 256 MiB file with a slot at every offset cost
 * 2.1 s of CPU to load, every slot hashed to its end). No more than MAX_SLOTS_HASHED are hashed: a hostile file whose
 * slots are all torn cost one hash per slot (17 of up to the whole file at 256 MiB).
 */
export function newestSlot(bytes: Buffer): CheckpointSlot | null {
  const announced: { slot: CheckpointSlot; hash: string }[] = [];
  const first = announcedAt(bytes, 0);
  if (first) announced.push(first);
  for (let offset = SLOT_ALIGN; offset < bytes.length; offset *= 2) {
    const at = announcedAt(bytes, offset);
    if (at) announced.push(at);
  }
  announced.sort((a, b) => b.slot.seq - a.slot.seq || a.slot.offset - b.slot.offset);
  for (const a of announced.slice(0, MAX_SLOTS_HASHED)) if (whole(a)) return a.slot;
  return null;
}

/** The stamp of a slot written into its document's own file: there is no other document for it to supersede. */
export const OWN_FILE_STAMP = '0.0.0';

/**
 * Where a document as created lies in its own file, as the slot the first checkpoint is written clear of: one byte
 * past its end, so a byte never written (a NUL) always ends it (see documentInFile).
 */
export function createdSlot(length: number): SlotAt {
  return { offset: 0, length: length + 1, seq: 0 };
}

/**
 * The newest document of a document file (`<id>.json`) whose checkpoints are written into it: its newest whole slot,
 * else the document as created (its bytes up to the first NUL: JSON text holds none, and the bytes between it and the
 * first slot were never written). `last` is where it lies: the next slot is written clear of it.
 */
export function documentInFile(bytes: Buffer): { body: Buffer; slot: CheckpointSlot | null; last: SlotAt } {
  const slot = newestSlot(bytes);
  if (slot) return { body: slot.body, slot, last: { offset: slot.offset, length: slot.length, seq: slot.seq } };
  const end = bytes.indexOf(0);
  const body = end < 0 ? bytes : bytes.subarray(0, end);
  return { body, slot: null, last: createdSlot(body.length) };
}

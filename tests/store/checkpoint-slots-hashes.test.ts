import type * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';

// Counts the hashes newestSlot computes: the module under test gets this wrapped createHash.
const hashed = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (original) => {
  const real = await original<typeof crypto>();
  return { ...real, createHash: (...args: Parameters<typeof real.createHash>) => ((hashed.count += 1), real.createHash(...args)) };
});

const { encodeSlot, MAX_SLOTS_HASHED, newestSlot, nextSlotOffset, SLOT_ALIGN } = await import('../../src/store/checkpoint-slots.js');

// probe15: a hostile checkpoint file with a whole slot at every power-of-two offset (each announcing a body to the
// end of the file) cost 2.1 s of CPU to load at 256 MiB: every slot was hashed. The newest is found by its header
// and checked first; lower seqs are hashed only while the ones above them are torn.
function fileWithSlots(count: number, tornFromTop = 0): Buffer {
  const size = SLOT_ALIGN * 2 ** (count - 1) + SLOT_ALIGN;
  const bytes = Buffer.alloc(size);
  let offset = 0;
  for (let seq = 1; seq <= count; seq++) {
    const slot = encodeSlot(seq, '0.0.0', Buffer.from(JSON.stringify({ seq })));
    (seq > count - tornFromTop ? torn(slot) : slot).copy(bytes, offset);
    offset = offset === 0 ? SLOT_ALIGN : offset * 2;
  }
  return bytes;
}

describe('newestSlot', () => {
  it('hashes only the newest slot when it is whole, however many slots the file holds', () => {
    const bytes = fileWithSlots(12);
    hashed.count = 0;
    expect(newestSlot(bytes)?.seq).toBe(12);
    expect(hashed.count).toBe(1);
  });

  it('goes down past the torn slots two crashed retries leave to the whole one they were written clear of', () => {
    // Slot 5 whole at 4096; the retries of slot 6 (same seq: the store's last slot is still 5) crash, one long
    // (past slot 5, at the next power of two) and one short (at 0, before slot 5).
    const whole = encodeSlot(5, '0.0.0', Buffer.from(JSON.stringify({ seq: 5, pad: 'x'.repeat(5000) })));
    const last = { offset: SLOT_ALIGN, length: whole.length, seq: 5 };
    const long = torn(encodeSlot(6, '0.0.0', Buffer.from(JSON.stringify({ seq: 6, pad: 'y'.repeat(9000) }))));
    const short = torn(encodeSlot(6, '0.0.0', Buffer.from(JSON.stringify({ seq: 6 }))));
    const longAt = nextSlotOffset(last, long.length);
    expect([nextSlotOffset(last, short.length), longAt]).toEqual([0, SLOT_ALIGN * 4]);
    const bytes = Buffer.alloc(longAt + long.length);
    whole.copy(bytes, SLOT_ALIGN);
    long.copy(bytes, longAt);
    short.copy(bytes, 0);
    hashed.count = 0;
    expect(newestSlot(bytes)?.seq).toBe(5);
    expect(hashed.count).toBe(3);
  });

  it('hashes no more than MAX_SLOTS_HASHED slots of a file whose slots are all torn', () => {
    // probe16: every one of 12 torn slots was hashed to its end (17 at 256 MiB, ~16x the file's size of SHA-256).
    const bytes = fileWithSlots(12, 12);
    hashed.count = 0;
    expect(newestSlot(bytes)).toBeNull();
    expect(hashed.count).toBe(MAX_SLOTS_HASHED);
  });
});

function torn(slot: Buffer): Buffer {
  slot.writeUInt8(slot.readUInt8(slot.length - 2) ^ 1, slot.length - 2);
  return slot;
}

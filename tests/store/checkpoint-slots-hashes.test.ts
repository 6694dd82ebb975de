import type * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';

// Counts the hashes newestSlot computes: the module under test gets this wrapped createHash.
const hashed = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (original) => {
  const real = await original<typeof crypto>();
  return { ...real, createHash: (...args: Parameters<typeof real.createHash>) => ((hashed.count += 1), real.createHash(...args)) };
});

const { encodeSlot, newestSlot, SLOT_ALIGN } = await import('../../src/store/checkpoint-slots.js');

// probe15: a hostile checkpoint file with a whole slot at every power-of-two offset (each announcing a body to the
// end of the file) cost 2.1 s of CPU to load at 256 MiB: every slot was hashed. The newest is found by its header
// and checked first; lower seqs are hashed only while the ones above them are torn.
function fileWithSlots(count: number, tornFromTop = 0): Buffer {
  const size = SLOT_ALIGN * 2 ** (count - 1) + SLOT_ALIGN;
  const bytes = Buffer.alloc(size);
  let offset = 0;
  for (let seq = 1; seq <= count; seq++) {
    const slot = encodeSlot(seq, '0.0.0', Buffer.from(JSON.stringify({ seq })));
    if (seq > count - tornFromTop) slot.writeUInt8(slot.readUInt8(slot.length - 2) ^ 1, slot.length - 2);
    slot.copy(bytes, offset);
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

  it('goes down past torn slots to the newest whole one', () => {
    const bytes = fileWithSlots(12, 3);
    hashed.count = 0;
    expect(newestSlot(bytes)?.seq).toBe(9);
    expect(hashed.count).toBe(4);
  });
});

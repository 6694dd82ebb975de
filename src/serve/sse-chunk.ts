// The last few buffers framed, by identity: a thousand readers written the same frame (or the same joined batch)
// in turn are handed one framed copy of it. Few, so a framed copy lives no longer than its writes.
const RECENT = 16;
const recentBytes: (Uint8Array | null)[] = new Array(RECENT).fill(null);
const recentChunks: (Uint8Array | null)[] = new Array(RECENT).fill(null);
let next = 0;

const CRLF = 0x0d0a;

/**
 * `bytes` as one chunk of an HTTP/1.1 chunked body (`<length in hex>\r\n<bytes>\r\n`), the bytes Node's response
 * writes for them in four pieces: made once for the readers written the same buffer one after another, so each
 * reader's write is one buffer handed to its socket. Never call it with no bytes (an empty chunk ends the body).
 */
export function httpChunk(bytes: Uint8Array): Uint8Array {
  for (let i = 0; i < RECENT; i++) if (recentBytes[i] === bytes) return recentChunks[i]!;
  const head = `${bytes.byteLength.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(head.length + bytes.byteLength + 2);
  chunk.write(head, 0, 'latin1');
  chunk.set(bytes, head.length);
  chunk.writeUInt16BE(CRLF, head.length + bytes.byteLength);
  recentBytes[next] = bytes;
  recentChunks[next] = chunk;
  next = (next + 1) % RECENT;
  return chunk;
}

import { hash } from 'node:crypto';

/**
 * The seal that chains a journal's lines. Every line written from schema version 3 on ends with
 * `,"prev":"<hash of the line before>","hash":"<its own hash>"}`, where a line's hash is the first 16 hex
 * digits of the SHA-256 of its exact bytes up to (not including) the hash itself. A changed byte, a
 * repeated, missing or moved line, or lines from another journal break the chain where they are.
 * It guards against damage and careless edits, not against someone who recomputes the chain (no key).
 */

/** Hex digits of a line's hash (64 bits: an accidental match is one in 2^64). */
export const HASH_LENGTH = 16;

/** The `prev` of a journal's first line, and the hash of a checkpoint that covers no line. */
export const CHAIN_START = '0'.repeat(HASH_LENGTH);

const HASH_KEY = ',"hash":"';
const PREV_KEY = ',"prev":"';
// A sealed line ends with the hash's 16 digits and `"}`; what is hashed is everything before the digits.
const TAIL = HASH_LENGTH + 2;
const SEAL = PREV_KEY.length + HASH_LENGTH + 1 + HASH_KEY.length + TAIL;
const HASH_KEY_BYTES = Buffer.from(HASH_KEY, 'latin1');

/** The bytes a journal ends with when its last complete line is the one sealed with `hash` (its newline included). */
export function sealEnding(hash: string): Buffer {
  return Buffer.from(`${HASH_KEY}${hash}"}\n`, 'latin1');
}

/** The hash of bytes (or of a string's UTF-8 bytes), as a journal line or checkpoint records it. */
export function hashOf(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex').slice(0, HASH_LENGTH);
}

/** Seals one record's JSON (an object, one line) after the line whose hash is `prev`: the line to write and its hash. */
export function sealLine(json: string, prev: string): { line: string; hash: string } {
  if (json.length < 2 || json[json.length - 1] !== '}') throw new Error('a journal record must be a JSON object');
  const hashed = `${json.slice(0, -1)}${PREV_KEY}${prev}"${HASH_KEY}`;
  const digest = hashOf(hashed);
  return { line: `${hashed}${digest}"}`, hash: digest };
}

/** Most bytes a sealed line of this JSON can take (its newline included): what `sealLineInto` needs free. */
export function sealedLineMaxBytes(json: string): number {
  return json.length * 3 + SEAL + 1;
}

/**
 * As sealLine, written as bytes (the newline included) into `into` at `at`, which has sealedLineMaxBytes(json)
 * bytes free: the JSON is encoded once, in place, the seal's text written over its closing brace, the bytes
 * before the digits hashed in one call and the digits written after them; no intermediate string or buffer.
 * Returns where the line ends and its hash.
 */
export function sealLineInto(json: string, prev: string, into: Buffer, at: number): { end: number; hash: string } {
  if (json.length < 2 || json[json.length - 1] !== '}') throw new Error('a journal record must be a JSON object');
  // The closing brace is one byte: the seal starts where it was.
  let end = at + into.write(json, at, 'utf8') - 1;
  end += into.write(`${PREV_KEY}${prev}"${HASH_KEY}`, end, 'latin1');
  const digest = hashOf(into.subarray(at, end));
  end += into.write(`${digest}"}\n`, end, 'latin1');
  return { end, hash: digest };
}

/** As sealLine, as the bytes to write (the newline included). */
export function sealLineBytes(json: string, prev: string): { bytes: Buffer; hash: string } {
  const into = Buffer.allocUnsafe(sealedLineMaxBytes(json));
  const { end, hash } = sealLineInto(json, prev, into, 0);
  return { bytes: into.subarray(0, end), hash };
}

/**
 * The hash a sealed line (its bytes, without the newline) declares, and whether its bytes match it;
 * null when the line carries no seal (written before schema version 3, or by hand).
 */
export function readSeal(bytes: Buffer): { hash: string; intact: boolean } | null {
  const n = bytes.length;
  if (n < SEAL + 2 || bytes[n - 1] !== 0x7d || bytes[n - 2] !== 0x22) return null;
  const digits = n - TAIL;
  const key = digits - HASH_KEY.length;
  for (let i = 0; i < HASH_KEY.length; i++) if (bytes[key + i] !== HASH_KEY_BYTES[i]) return null;
  for (let i = digits; i < digits + HASH_LENGTH; i++) {
    const b = bytes[i]!;
    if (!((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66))) return null;
  }
  const declared = bytes.toString('latin1', digits, digits + HASH_LENGTH);
  return { hash: declared, intact: hashOf(bytes.subarray(0, digits)) === declared };
}

/** A line's record JSON without its seal (as a version-2 troupe wrote it), to seal it afresh; other lines are returned as they are. */
export function withoutSeal(text: string): string {
  const tail = text.slice(-SEAL);
  if (!tail.startsWith(PREV_KEY) || readSeal(Buffer.from(text)) === null) return text;
  return `${text.slice(0, -SEAL)}}`;
}

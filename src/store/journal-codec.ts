import { packDecision, RowShapes, unpackDecision } from './decision-rows.js';
import { eventOfRow, firstShapeOf, objectOfRow, shapeAfter, shapeEndsAt, shapeHas } from './event-rows.js';
import type { JournalRecord } from './session-file.js';

/**
 * How a journal line holds its record from schema 4 on: without what the file or the line already says.
 * An event whose envelope is the usual one (this session's id, the seq after the event before it in the
 * line, the line's time, as the last three keys) is stored without it, and the line says once where its
 * seqs start and when (`seq`, `at`); an event field holding a value of the step's input (the agent's text,
 * its directive) is stored as 0 and named in `refs` ([event index, field, path in the input]). Reading puts
 * both back in place (same values, same key order), so every reader sees the events as they were
 * published. Other events are stored whole. From schema 5 an arbitration's decision is stored packed (see
 * decision-rows.ts): its events are listed in `packed`, the key lists of its proposal rows in `shapes`.
 * From schema 6 a step's line also holds the runtime facts published just before it (a call's usage: their
 * count is `facts`, and they come first) and the calls it starts (agent_started, after its own events): one
 * line per turn, read back as written. From schema 7 an event of a usual layout (see event-rows.ts) whose
 * envelope is the usual one is stored as a row: its layout's number, then its values. Lines of schemas 1-3
 * carry no `seq` or `refs` and read as they are; schema-4 lines no `packed`; lines before schema 6 no `facts`;
 * lines before schema 7 no rows. From schema 8 (see `DerivedEvents`) a step's line leaves out the events step()
 * derived from its input: it keeps the input, the facts before it and the calls it starts, and says where the
 * derived events go (`step`: the engine semantics it was written under, their count, a digest of them and the
 * digest's version, absent on lines written before version 2; `times` only when they were not all stamped at the
 * line's `at`). A reader rebuilds them by replaying step() (see journal-replay.ts) with the machine the lines
 * before it record (a `machine` line, see stored-machine.ts).
 */

type Raw = Record<string, unknown>;

/**
 * Where a schema-8 step line's derived events go, as read back (before a reader replays them): the engine
 * semantics the line was written under, how many there were and a digest of them (the replay's check, of `version`),
 * the seq of the first, and when they were stamped (`at`, or one time each in `times`). They come after the
 * line's `facts` and before the calls it starts.
 */
export type DerivedEvents = NonNullable<JournalRecord['derived']>;

/** The version of `derivedDigest` a new schema-8 line is checked with (the fourth number of its `step`; a line without one was written with version 1). */
export const DIGEST_VERSION = 3;

// Versions 2 and 3 hash a string field's first characters only: enough to tell another target, winner or persona apart.
const DIGEST_PREFIX = 32;
const FNV_PRIME = 0x01000193;
const FNV_START = 0x811c9dc5;

function mixText(h: number, text: string, length: number): number {
  for (let c = 0; c < length; c++) h = Math.imul(h ^ text.charCodeAt(c), FNV_PRIME);
  return h;
}

// Version 3's hashes of short strings (ids, paths, personas, reasons: the same few at every step), by their text.
// Reading a string character by character was most of a line's digest: ~50 ns a string in a running session, where
// the loop meets every kind of string V8 makes. Bounded: cleared when full; longer strings are hashed each time.
const prefixHashes = new Map<string, number>();
const MEMO_MAX_LENGTH = 64;
const MEMO_MAX_ENTRIES = 4096;

/** FNV-1a of a string's first DIGEST_PREFIX characters (version 3 mixes this one number per string field). */
function prefixHash(v: string): number {
  if (v.length > MEMO_MAX_LENGTH) return mixText(FNV_START, v, DIGEST_PREFIX);
  let k = prefixHashes.get(v);
  if (k === undefined) {
    k = mixText(FNV_START, v, Math.min(v.length, DIGEST_PREFIX));
    if (prefixHashes.size >= MEMO_MAX_ENTRIES) prefixHashes.clear();
    prefixHashes.set(v, k);
  }
  return k;
}

// A number's IEEE-754 bits as two 32-bit words: version 3 hashes a fraction without writing it out as text.
const numberBits = new Float64Array(1);
const numberWords = new Int32Array(numberBits.buffer);

/**
 * The digest a schema-8 line keeps of its derived events, FNV-1a, so a replay that derives other events is told
 * apart without serialising any: version 1 over their types; version 2 also over every top-level string (its first
 * 32 characters), number and boolean field but the envelope (session_id, seq, at), in their order — a handoff to
 * another persona, another winner or target; version 3 over the same, each string (the type too) mixed in as the
 * FNV-1a of its first 32 characters (computed once per text), each fraction by its bits.
 */
export function derivedDigest(events: readonly unknown[], from = 0, to = events.length, version = DIGEST_VERSION): number {
  let h = FNV_START;
  for (let i = from; i < to; i++) h = digestEvent(h, events[i] as Raw, version);
  return h >>> 0;
}

// The envelope of the event digestEvent read last (one object for the process, not one per event).
const envelope: { session: unknown; seq: unknown; at: unknown } = { session: undefined, seq: undefined, at: undefined };

/** derivedDigest's step for one event; from version 2 its envelope's values are left in `envelope` (one walk over its keys for both). */
function digestEvent(h: number, e: Raw, version: number): number {
  const type = String(e.type);
  h = version >= 3 ? Math.imul(h ^ prefixHash(type), FNV_PRIME) : mixText(h, type, type.length);
  if (version >= 2) {
    envelope.session = envelope.seq = envelope.at = undefined;
    for (const key in e) {
      const v = e[key];
      if (key === 'type') continue;
      if (key === 'session_id') envelope.session = v;
      else if (key === 'seq') envelope.seq = v;
      else if (key === 'at') envelope.at = v;
      else if (typeof v === 'string') {
        h = Math.imul(h ^ 1, FNV_PRIME);
        h = version >= 3 ? Math.imul(h ^ prefixHash(v), FNV_PRIME) : mixText(h, v, Math.min(v.length, DIGEST_PREFIX));
      } else if (typeof v === 'number') {
        h = Math.imul(h ^ 2, FNV_PRIME);
        if (Number.isInteger(v) && Math.abs(v) < 2 ** 31) h = Math.imul(h ^ v, FNV_PRIME);
        else if (version >= 3) {
          numberBits[0] = v;
          h = Math.imul(Math.imul(h ^ numberWords[0]!, FNV_PRIME) ^ numberWords[1]!, FNV_PRIME);
        } else h = mixText(h, String(v), String(v).length);
      } else if (typeof v === 'boolean') h = Math.imul(h ^ (v ? 3 : 4), FNV_PRIME);
    }
  }
  return Math.imul(h ^ 44, FNV_PRIME);
}

/** What scanDerived found besides where the derived events end: their digest, and whether all were stamped at the line's time. */
const scanned = { digest: 0, sameAt: true };

/**
 * Where the derived events of a step's record a schema-8 line may leave out end (they start after its facts and come
 * before the agent_started of the calls it starts: step() never emits one), each with this session's id, the seq
 * after the one before and a time; -1 when one is not (the line keeps its events, as in schema
 * 7). One walk over their keys: the envelope is checked as the digest is taken (`scanned`), and whether each was
 * stamped at `at`.
 */
function scanDerived(events: readonly Raw[], facts: number, sessionId: string, at: unknown): number {
  let to = events.length;
  while (to > facts && events[to - 1]!.type === 'agent_started') to -= 1;
  const seq = events[facts]?.seq;
  if (to > facts && typeof seq !== 'number') return -1;
  let h = FNV_START;
  let sameAt = true;
  for (let i = facts; i < to; i++) {
    h = digestEvent(h, events[i]!, DIGEST_VERSION);
    if (envelope.session !== sessionId || envelope.seq !== (seq as number) + (i - facts) || typeof envelope.at !== 'number') return -1;
    if (envelope.at !== at) sameAt = false;
  }
  scanned.digest = h >>> 0;
  scanned.sameAt = sameAt;
  return to;
}

/** The schema version from which a step's line leaves out the events step() derives (a reader replays them). */
export const REPLAYED_SINCE = 8;

/** [event index, field, path in the input ("text", "directive.directive")]. */
type Ref = [number, string, string];

// Shorter strings cost less written out than referenced.
const MIN_REF_LENGTH = 32;

function referable(v: unknown): boolean {
  return typeof v === 'string' ? v.length >= MIN_REF_LENGTH : v !== null && typeof v === 'object';
}

/** The input's values an event may repeat: its fields, and the fields of its object fields, that are worth a reference. */
function sourcesOf(input: Raw): [string, unknown][] {
  const sources: [string, unknown][] = [];
  for (const key in input) {
    if (key === 'type') continue;
    const v = input[key];
    if (referable(v)) sources.push([key, v]);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const inner in v as Raw) {
        const w = (v as Raw)[inner];
        if (referable(w)) sources.push([`${key}.${inner}`, w]);
      }
    }
  }
  return sources;
}

// The values of the row being built, reused from event to event: a row is copied out once it is complete, at its
// length (built by push, each row grew its backing store past its length: 2 KiB of a line's 11 KiB of garbage).
const rowValues: unknown[] = [];

/** The path of the input's value `v` among `sources`, if it is one (a loop: a callback per value allocated a closure, and its destructuring an iterator). */
function sourceOf(sources: readonly [string, unknown][], v: unknown): string | undefined {
  for (let i = 0; i < sources.length; i++) if (sources[i]![1] === v) return sources[i]![0];
  return undefined;
}

/**
 * The object a journal line stores for `record` (JSON-serialise it and seal it): events copied without their
 * envelope where it is the usual one, and without the input's values they repeat. Events are shallow-copied
 * (their payloads shared), the record itself never.
 */
export function slimRecord(record: JournalRecord, sessionId: string, semantics?: number): Raw {
  const all = record.events as Raw[];
  // The line's time is its step's (the facts before it, a call's usage, may be stamped a moment earlier).
  const facts = record.facts ?? 0;
  // Schema 8: the `gap` derived events are left out (in the record as replayed they follow its facts).
  let events = all;
  let gap = 0;
  let step: number[] | null = null;
  let times: number[] | null = null;
  let seq: unknown;
  let at: unknown;
  const carried = record.derived;
  if (carried) {
    // A record read back whose derived events could not be replayed (a fork of it): its line says again where they go.
    gap = carried.count;
    step = carried.version !== undefined ? [carried.semantics, carried.count, carried.digest, carried.version] : [carried.semantics, carried.count, carried.digest];
    if (carried.times) times = carried.times;
    seq = carried.seq - facts;
    at = carried.at;
  } else {
    const first = all[facts] ?? all[0];
    seq = typeof first?.seq === 'number' ? first.seq - (first === all[0] ? 0 : facts) : first?.seq;
    at = first?.at;
    const to = semantics !== undefined && record.input && typeof seq === 'number' && typeof at === 'number' ? scanDerived(all, facts, sessionId, at) : -1;
    if (to >= 0) {
      const from = facts;
      gap = to - from;
      step = [semantics!, gap, scanned.digest, DIGEST_VERSION];
      if (!scanned.sameAt) {
        times = new Array(gap);
        for (let k = 0; k < gap; k++) times[k] = all[from + k]!.at as number;
      }
      if (gap > 0) {
        // The events but the derived ones, copied once.
        events = new Array(all.length - gap);
        for (let i = 0; i < from; i++) events[i] = all[i]!;
        for (let i = to; i < all.length; i++) events[i - gap] = all[i]!;
      }
    }
  }
  // The input's values worth a reference, listed when the first event field that could repeat one is met (most lines have none).
  let sources: [string, unknown][] | null = null;
  const stored: (Raw | unknown[])[] = new Array(events.length);
  let refs: Ref[] | null = null;
  let slim = false;
  let shapes: RowShapes | null = null;
  let packed: number[] | null = null;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    // Its seq in the record as replayed: the derived events left out come before the calls the step starts.
    const offset = i < facts ? i : i + gap;
    const arbitration = e.type === 'arbitration';
    let decision: Raw | null = null;
    // 0: payload; 1-3: session_id, seq, at seen in that order; -1: the envelope is not the usual one (kept whole).
    let tail = 0;
    // The event as stored while its keys follow a known layout: a row (its layout's number, then its values); an object from the first key that does not.
    let shape = -1;
    // Whether the event is a row so far (its values in rowValues, `count` of them).
    let row = false;
    let copy: Raw | null = null;
    // Payload keys read so far.
    let count = 0;
    let eventRefs: Ref[] | null = null;
    for (const key in e) {
      const v = e[key];
      if (key === 'session_id' && tail === 0 && v === sessionId) tail = 1;
      else if (key === 'seq' && tail === 1 && typeof seq === 'number' && v === seq + offset) tail = 2;
      else if (key === 'at' && tail === 2 && v === at) tail = 3;
      else if (tail !== 0) tail = -1;
      else {
        let path: string | undefined;
        if (key !== 'type' && record.input && referable(v)) {
          sources ??= sourcesOf(record.input as Raw);
          path = sourceOf(sources, v);
        }
        let value: unknown = 0;
        if (path === undefined) {
          if (arbitration && key === 'decision') {
            if (shapes === null) shapes = new RowShapes();
            decision = packDecision(v, shapes);
          }
          value = decision ?? v;
        } else {
          if (eventRefs === null) eventRefs = [];
          eventRefs.push([i, key, path]);
        }
        if (count === 0) {
          shape = key === 'type' ? firstShapeOf(v) : -1;
          if (shape >= 0) {
            row = true;
            rowValues[0] = shape;
          } else copy = { [key]: value };
        } else if (row) {
          // JSON leaves a key whose value it cannot write out of an object, but writes null in an array: such an event stays an object.
          const fits = v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
          if (fits && !shapeHas(shape, count, key)) {
            shape = shapeAfter(shape, count, key);
            if (shape >= 0) rowValues[0] = shape;
          }
          if (fits && shape >= 0) rowValues[count] = value;
          else {
            copy = objectOfRow(rowValues, count);
            copy[key] = value;
            row = false;
          }
        } else copy![key] = value;
        count += 1;
      }
    }
    if (row && !shapeEndsAt(shape, count)) {
      // Fewer keys than its layout: another layout of its type that ends here, or an object.
      shape = shapeAfter(shape, count, null);
      if (shape >= 0) rowValues[0] = shape;
      else {
        copy = objectOfRow(rowValues, count);
        row = false;
      }
    }
    if (tail === 3) {
      stored[i] = row ? rowValues.slice(0, count) : (copy ?? {});
      slim = true;
      if (eventRefs !== null) refs = refs ? refs.concat(eventRefs) : eventRefs;
    } else {
      // Kept whole, its envelope too: only the decision is packed.
      if (arbitration && decision === null) {
        if (shapes === null) shapes = new RowShapes();
        decision = packDecision(e.decision, shapes);
      }
      stored[i] = decision !== null ? { ...e, decision } : e;
    }
    if (decision !== null) {
      packed ??= [];
      packed.push(i);
    }
  }
  const out: Raw = { n: record.n };
  if (record.machine) out.machine = record.machine;
  if (record.input) out.input = record.input;
  if (record.facts !== undefined && record.facts > 0) out.facts = record.facts;
  if (slim || step !== null) {
    out.seq = seq;
    out.at = at;
  }
  out.events = stored;
  if (step !== null) {
    out.step = step;
    if (times !== null) out.times = times;
  }
  if (refs) out.refs = refs;
  if (packed !== null && packed.length > 0) {
    out.packed = packed;
    out.shapes = shapes!.list;
  }
  return out;
}

/** Why a line's record cannot be read back (the caller names the file and line). */
export class SlimRecordError extends Error {}

/** A schema-8 line's `step` and `times` read as where its derived events go; throws a SlimRecordError when they are not of their shape. */
function derivedOf(line: Raw & { events: unknown[] }, seq: unknown, at: unknown, step: unknown, times: unknown): DerivedEvents {
  const whole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
  if (line.input === undefined || !Array.isArray(step) || (step.length !== 3 && step.length !== 4) || !step.every(whole))
    throw new SlimRecordError('has a step that is not [semantics, count, digest] or [semantics, count, digest, digest version] of a step line');
  if (typeof seq !== 'number' || !Number.isInteger(seq) || typeof at !== 'number') throw new SlimRecordError('has a seq or at that is not a number');
  const [semantics, count, digest, version] = step as number[];
  if (version !== undefined && (version < 2 || version > DIGEST_VERSION)) throw new SlimRecordError(`has a digest version ${version} this troupe does not know (1-${DIGEST_VERSION})`);
  if (times !== undefined && (!Array.isArray(times) || times.length !== count || !times.every((t) => typeof t === 'number')))
    throw new SlimRecordError('has times that are not one time per derived event');
  const facts = typeof line.facts === 'number' ? line.facts : 0;
  return {
    semantics: semantics!,
    count: count!,
    digest: digest!,
    ...(version !== undefined ? { version } : {}),
    seq: seq + facts,
    at,
    ...(times !== undefined ? { times: times as number[] } : {}),
  };
}

function valueAt(input: Raw | undefined, path: string): unknown {
  let v: unknown = input;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, key)) return undefined;
    v = (v as Raw)[key];
  }
  return v;
}

/**
 * The record a parsed journal line holds, as it was appended: a schema-4 line gets its events' envelopes
 * and referenced values back (in place, in their key order); an older line is returned as it is. Throws a
 * SlimRecordError when the line's `seq`, `at` or `refs` are not of their shape; a reference to a field or
 * input value that is not there (a hand edit) is left as stored.
 */
export function restoreRecord(line: Raw & { n: number; events: unknown[] }, sessionId: string): JournalRecord {
  const { seq, at, refs, packed, facts, step, times } = line;
  if (facts !== undefined && (typeof facts !== 'number' || !Number.isInteger(facts) || facts < 1 || facts > line.events.length || line.input === undefined)) {
    throw new SlimRecordError('has a facts count that is not a number of its events before a step');
  }
  if (seq === undefined && at === undefined && refs === undefined && packed === undefined && step === undefined) return line as unknown as JournalRecord;
  const events = line.events;
  let derived: DerivedEvents | undefined;
  if (step !== undefined) derived = derivedOf(line, seq, at, step, times);
  const gap = derived?.count ?? 0;
  const before = typeof facts === 'number' ? facts : 0;
  if (seq !== undefined || at !== undefined) {
    if (typeof seq !== 'number' || !Number.isInteger(seq) || typeof at !== 'number') throw new SlimRecordError('has a seq or at that is not a number');
    for (let i = 0; i < events.length; i++) {
      let e = events[i] as Raw;
      // A row (schema 7) is the object again, then gets its envelope; one out of shape is left as stored.
      if (Array.isArray(e)) {
        const restored = eventOfRow(e);
        if (restored === null) continue;
        e = restored;
        events[i] = e;
      }
      if (e === null || typeof e !== 'object' || Object.hasOwn(e, 'seq')) continue;
      e.session_id = sessionId;
      e.seq = seq + (i < before ? i : i + gap);
      e.at = at;
    }
  }
  if (refs !== undefined) {
    if (!Array.isArray(refs)) throw new SlimRecordError('has refs that are not a list');
    const input = line.input as Raw | undefined;
    for (const ref of refs as unknown[]) {
      if (!Array.isArray(ref) || ref.length !== 3) throw new SlimRecordError(`has a reference ${JSON.stringify(ref)} that is not [event, field, path]`);
      const [i, key, path] = ref as unknown[];
      const e = typeof i === 'number' ? (events[i] as Raw | undefined) : undefined;
      const value = typeof path === 'string' ? valueAt(input, path) : undefined;
      // A reference an edit left dangling leaves the field as stored: readers check an event's fields and skip a malformed one.
      if (e && typeof e === 'object' && typeof key === 'string' && Object.hasOwn(e, key) && value !== undefined) e[key] = value;
    }
  }
  if (packed !== undefined) {
    if (!Array.isArray(packed)) throw new SlimRecordError('has a packed list that is not a list');
    for (const i of packed as unknown[]) {
      const e = typeof i === 'number' ? (events[i] as Raw | undefined) : undefined;
      if (e !== null && typeof e === 'object' && !Array.isArray(e)) unpackDecision(e.decision, line.shapes);
    }
  }
  const record: Raw = { n: line.n };
  if (line.machine !== undefined) record.machine = line.machine;
  if (line.input !== undefined) record.input = line.input;
  if (facts !== undefined) record.facts = facts;
  record.events = events;
  if (derived !== undefined) record.derived = derived;
  if (line.prev !== undefined) record.prev = line.prev;
  if (line.hash !== undefined) record.hash = line.hash;
  return record as unknown as JournalRecord;
}

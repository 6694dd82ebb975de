import type { TroupeEvent } from '../engine/event-map.js';
import { processRedactor, redactDeep, type Redactor } from '../llm/redact.js';
import { DISPLAY_START, displayStep, SILENT_EVENTS, type DisplayItem, type DisplayNames, type DisplayState } from '../report/display-items.js';
import { terminalSafeJson } from '../report/terminal-safe.js';
import { isLiveOnly } from '../kernel/session-kernel.js';
import { sseEventName } from './sse-message.js';

/** An event as the SSE stream sends it: the bytes of its message, its seq, and whether it is live only (a delta: no id, never a resume point). */
export interface SseFrame {
  seq: number;
  live: boolean;
  bytes: Uint8Array;
  /** The session ended with this event: the stream ends once it is written. */
  ends?: boolean;
}

/** How long an EventSource waits before it reconnects (the stream's `retry:` field, its first frame). */
export const SSE_RETRY_MS = 3_000;

/** The stream's first frame: the reconnection delay. */
export const RETRY_FRAME: SseFrame = { seq: 0, live: true, bytes: Buffer.from(`retry: ${SSE_RETRY_MS}\n\n`) };

// The time of the last event serialised, as text: the events of one step share their clock reading.
const lastAt = { at: Number.NaN, iso: '' };
function isoOf(at: number): string {
  if (at !== lastAt.at) {
    lastAt.iso = new Date(at).toISOString();
    lastAt.at = at;
  }
  return lastAt.iso;
}

const NO_ITEMS: readonly DisplayItem[] = [];

/**
 * What an event's frame is made of: its JSON as `--json` prints it with its display items (sseMessage's data:
 * `{...e, at: <ISO time>, items}`), in pieces written in turn (see writeFrame). The bus stamps `at` last, so the
 * event's own JSON ends with it and only that tail is rewritten (a copy of the event with a new key costs the
 * serialiser three times as much); any other shape is copied.
 */
interface FrameSource {
  e: TroupeEvent;
  live: boolean;
  /** The event's own JSON: its tail `"at":<number>}` (`tail` characters, ASCII) is overwritten by the time as text and the items (`items` set), or all of it is the data (`items` null). */
  json: string;
  tail: number;
  items: string | null;
}

/** The pieces of an event's frame, the event as it is shown (redacted when its JSON held anything the redactor would change), and the display state after it. */
function sourceOf(
  e: TroupeEvent,
  state: DisplayState,
  names: DisplayNames,
  redactor: Redactor,
  stepped: { state: DisplayState; items: readonly DisplayItem[] } | undefined,
): { source: FrameSource; state: DisplayState } {
  const live = isLiveOnly(e.type);
  const plain = JSON.stringify(e);
  // Only the event's own text is screened: its items are worded from it, so when it holds nothing to redact
  // the redacted copy below would word them the same (the frame's bytes are the same either way).
  if (!redactor.screen || redactor.screen.test(plain)) {
    const shown = redactDeep(e, redactor);
    const slow = displayStep(state, shown, names);
    return { source: piecesOf(shown, JSON.stringify(shown), slow.items, live), state: slow.state };
  }
  // Silent events (streamed words above all) have no items and leave the fold as it was.
  if (SILENT_EVENTS.has(e.type)) return { source: piecesOf(e, plain, NO_ITEMS, live), state };
  const fast = stepped ?? displayStep(state, e, names);
  return { source: piecesOf(e, plain, fast.items, live), state: fast.state };
}

function piecesOf(e: TroupeEvent, plain: string, items: readonly DisplayItem[], live: boolean): FrameSource {
  if (typeof e.at === 'number' && !Object.hasOwn(e, 'items')) {
    const tail = `"at":${e.at}}`;
    if (plain.endsWith(tail)) return { e, live, json: plain, tail: tail.length, items: items.length === 0 ? '[]' : JSON.stringify(items) };
  }
  return { e, live, json: JSON.stringify({ ...e, at: new Date(e.at).toISOString(), items }), tail: 0, items: null };
}

// Frames are encoded into this buffer, then copied out at their exact size: one encoding of each piece, with no
// joined string (a frame's text was copied three times on its way to bytes) and no measuring pass.
const SCRATCH_BYTES = 64 * 1024;
let scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);

/** Makes room in the scratch buffer for `bytes` more bytes at `at` (growing it, keeping what is before `at`). */
function room(at: number, bytes: number): void {
  if (at + bytes > scratch.length) {
    const bigger = Buffer.allocUnsafeSlow(Math.max(scratch.length * 2, at + bytes));
    scratch.copy(bigger, 0, 0, at);
    scratch = bigger;
  }
}

/** Writes `text` into the scratch buffer at `at`; returns where it ends. */
function put(at: number, text: string): number {
  // At most three bytes per UTF-16 unit.
  room(at, text.length * 3);
  return at + scratch.write(text, at);
}

// Each event type's first lines (`event: <name>` and the `data: ` before its JSON), encoded once: copied, not
// encoded again, into every frame (a call into Buffer#write costs more than the copy of these few bytes).
const HEADS = new Map<string, Buffer>();

/** Copies the head of an event type's frame into the scratch buffer at `at`; returns where it ends. */
function putHead(at: number, type: string): number {
  let head = HEADS.get(type);
  if (!head) {
    head = Buffer.from(`event: ${sseEventName(type)}\ndata: `);
    HEADS.set(type, head);
  }
  room(at, head.length);
  scratch.set(head, at);
  return at + head.length;
}

/** Writes an event's SSE message at `at`: `event:` its SSE name, `data:` its JSON made terminal-safe, `id:` its seq unless it is live only (as Hono's writeSSE writes it). */
function writeFrame(at: number, f: FrameSource): number {
  const end = put(putHead(at, f.e.type), terminalSafeJson(f.json));
  const id = f.live ? '\n\n' : `\nid: ${f.e.seq}\n\n`;
  if (f.items === null) return put(end, id);
  // The tail `"at":<number>}` is ASCII: its bytes are its characters. What replaces it is written in one go.
  const items = f.items === '[]' ? f.items : terminalSafeJson(f.items);
  return put(end - f.tail, `"at":"${isoOf(f.e.at)}","items":${items}}${id}`);
}

/** The scratch buffer's first `length` bytes in a buffer of their own (a slice of Node's shared pool when `pooled`); a grown scratch buffer is let go of. */
function copyOut(length: number, pooled: boolean): Buffer {
  const bytes = pooled ? Buffer.allocUnsafe(length) : Buffer.allocUnsafeSlow(length);
  scratch.copy(bytes, 0, 0, length);
  if (scratch.length > SCRATCH_BYTES * 16) scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  return bytes;
}

function frameFrom(f: FrameSource, bytes: Buffer): SseFrame {
  return f.e.type === 'session_ended' ? { seq: f.e.seq, live: f.live, bytes, ends: true } : { seq: f.e.seq, live: f.live, bytes };
}

/**
 * The SSE frame of an event and the display state after it (the fold all readers of a session share): worded,
 * redacted and serialised once, however many read it. Redaction is screened: the event is serialised and
 * that text searched once for anything the redactor would change; only when something is there is the event
 * redacted (every string, as `redactDeep`), and worded and serialised again from the redacted copy, so its
 * items never quote what the event hid. A stored event's frame owns its bytes: Node's small buffers are
 * slices of a shared 8 KiB pool, and a kept slice keeps its whole pool alive (frames a feed keeps, made
 * between streamed words whose frames are dropped, held about 3 KiB each of pools).
 */
export function sseFrame(
  e: TroupeEvent,
  state: DisplayState,
  names: DisplayNames,
  redactor: Redactor = processRedactor(),
  /** `displayStep(state, e, names)`, when the caller's fold has it already. */
  stepped?: { state: DisplayState; items: readonly DisplayItem[] },
): { frame: SseFrame; state: DisplayState } {
  const made = sourceOf(e, state, names, redactor, stepped);
  return { frame: frameFrom(made.source, copyOut(writeFrame(0, made.source), made.source.live)), state: made.state };
}

/**
 * The frames of several events, each with the display state before it (and its step, when the caller's fold
 * has it), as sseFrame makes each, encoded into one buffer of their own: each frame's bytes are a view of it
 * (and joinedBytes of them all, in order, a view too: what a reader joining before them is sent).
 */
export function sseFrames(
  list: readonly { e: TroupeEvent; before: DisplayState; stepped?: { state: DisplayState; items: readonly DisplayItem[] } | undefined }[],
  names: DisplayNames,
  redactor: Redactor = processRedactor(),
): SseFrame[] {
  const sources = list.map((k) => sourceOf(k.e, k.before, names, redactor, k.stepped).source);
  const ends: number[] = [];
  let end = 0;
  for (const f of sources) {
    end = writeFrame(end, f);
    ends.push(end);
  }
  const bytes = copyOut(end, false);
  return sources.map((f, i) => frameFrom(f, bytes.subarray(i === 0 ? 0 : ends[i - 1], ends[i])));
}

/** The bytes of frames as one buffer: a view when they lie one after the other in one buffer (as sseFrames makes them), else a copy. */
export function joinedBytes(frames: readonly SseFrame[]): Uint8Array {
  const first = frames[0]!.bytes;
  let end = first.byteOffset + first.byteLength;
  for (const f of frames.slice(1)) {
    if (f.bytes.buffer !== first.buffer || f.bytes.byteOffset !== end) return Buffer.concat(frames.map((g) => g.bytes));
    end += f.bytes.byteLength;
  }
  return new Uint8Array(first.buffer, first.byteOffset, end - first.byteOffset);
}

/**
 * One frame for a batch of streamed words and predictions (live-only, silent events: no items, the fold unchanged), as the
 * frames sseFrame makes of each joined: each event is serialised and screened, and the batch encoded once.
 * A batch the screen flags is framed event by event (each redacted as sseFrame does).
 */
export function deltasFrame(events: readonly TroupeEvent[], state: DisplayState, names: DisplayNames, redactor: Redactor = processRedactor()): SseFrame {
  const seq = events.at(-1)!.seq;
  const jsons = events.map((e) => JSON.stringify(e));
  // Screened as one text (one search per batch); no secret's telltale spans the newline between two.
  if (!redactor.screen || redactor.screen.test(jsons.join('\n'))) {
    return { seq, live: true, bytes: Buffer.concat(events.map((e) => sseFrame(e, state, names, redactor).frame.bytes)) };
  }
  let end = 0;
  for (const [i, e] of events.entries()) end = writeFrame(end, piecesOf(e, jsons[i]!, NO_ITEMS, true));
  return { seq, live: true, bytes: copyOut(end, true) };
}

/** The frames of stored events after `after`, for one reader resuming there: the display fold runs over the whole log, so the first items are worded right. */
export function storedFrames(events: readonly TroupeEvent[], after: number, names: DisplayNames, redactor: Redactor = processRedactor()): SseFrame[] {
  let state = DISPLAY_START;
  const frames: SseFrame[] = [];
  for (const e of events) {
    if (e.seq <= after) state = displayStep(state, e, names).state;
    else {
      const made = sseFrame(e, state, names, redactor);
      state = made.state;
      frames.push(made.frame);
    }
  }
  return frames;
}

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

/**
 * The event's JSON as `--json` prints it, with its display items (see eventJson), before it is made
 * terminal-safe: `{...e, at: <ISO time>, items}`. The bus stamps `at` last, so the event's own JSON ends
 * with it and only that tail is rewritten (a copy of the event with a new key costs the serialiser three
 * times as much); any other shape is copied as before.
 */
export function rawJson(e: TroupeEvent, items: readonly DisplayItem[]): string {
  const plain = JSON.stringify(e);
  const tail = `"at":${e.at}}`;
  if (typeof e.at === 'number' && plain.endsWith(tail) && !Object.hasOwn(e, 'items')) {
    return `${plain.slice(0, plain.length - tail.length)}"at":"${isoOf(e.at)}","items":${items.length === 0 ? '[]' : JSON.stringify(items)}}`;
  }
  return JSON.stringify({ ...e, at: new Date(e.at).toISOString(), items });
}

/**
 * A string's UTF-8 bytes in a buffer of their own. `Buffer.from` carves small strings out of a shared 8 KiB
 * pool, and a kept slice keeps its whole pool alive: the frames a feed keeps (stored events, for readers that
 * join later), made between streamed words whose frames are dropped, held about 3 KiB each of pools.
 */
export function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/** The SSE message of an event as bytes: `event:` its SSE name, `data:` its JSON, `id:` its seq unless it is live only (as Hono's writeSSE writes it). */
function frameOf(e: TroupeEvent, json: string, live: boolean): SseFrame {
  const data = terminalSafeJson(json);
  const name = sseEventName(e.type);
  const bytes = live ? Buffer.from(`event: ${name}\ndata: ${data}\n\n`) : ownBytes(`event: ${name}\ndata: ${data}\nid: ${e.seq}\n\n`);
  return e.type === 'session_ended' ? { seq: e.seq, live, bytes, ends: true } : { seq: e.seq, live, bytes };
}

/**
 * The SSE frame of an event and the display state after it (the fold all readers of a session share): worded,
 * redacted and serialised once, however many read it. Redaction is screened: the event is serialised with its
 * items and that text searched once for anything the redactor would change; only when something is there is
 * the event redacted (every string, as `redactDeep`), and worded and serialised again from the redacted copy,
 * so its items never quote what the event hid.
 */
export function sseFrame(
  e: TroupeEvent,
  state: DisplayState,
  names: DisplayNames,
  redactor: Redactor = processRedactor(),
  /** `displayStep(state, e, names)`, when the caller's fold has it already. */
  stepped?: { state: DisplayState; items: readonly DisplayItem[] },
): { frame: SseFrame; state: DisplayState } {
  const live = isLiveOnly(e.type);
  // Silent events (streamed words above all) have no items and leave the fold as it was.
  const fast = SILENT_EVENTS.has(e.type) ? { state, items: [] } : (stepped ?? displayStep(state, e, names));
  const json = rawJson(e, fast.items);
  if (redactor.screen && !redactor.screen.test(json)) return { frame: frameOf(e, json, live), state: fast.state };
  const shown = redactDeep(e, redactor);
  const slow = displayStep(state, shown, names);
  return { frame: frameOf(e, rawJson(shown, slow.items), live), state: slow.state };
}

const NO_ITEMS: readonly DisplayItem[] = [];

/**
 * One frame for a batch of streamed words (live-only, silent events: no items, the fold unchanged), as the
 * frames sseFrame makes of each joined: the events are serialised each, then screened, made terminal-safe
 * and encoded once for the batch. A batch the screen flags is framed event by event (each redacted as
 * sseFrame does).
 */
export function deltasFrame(events: readonly TroupeEvent[], state: DisplayState, names: DisplayNames, redactor: Redactor = processRedactor()): SseFrame {
  const seq = events.at(-1)!.seq;
  const jsons = events.map((e) => rawJson(e, NO_ITEMS));
  if (redactor.screen && !redactor.screen.test(jsons.join('\n'))) {
    let text = '';
    for (let i = 0; i < jsons.length; i++) text += `event: ${sseEventName(events[i]!.type)}\ndata: ${jsons[i]}\n\n`;
    return { seq, live: true, bytes: Buffer.from(terminalSafeJson(text)) };
  }
  return { seq, live: true, bytes: Buffer.concat(events.map((e) => sseFrame(e, state, names, redactor).frame.bytes)) };
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

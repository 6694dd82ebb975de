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

/** The event's JSON as `--json` prints it, with its display items (see eventJson), before it is made terminal-safe. */
const rawJson = (e: TroupeEvent, items: readonly DisplayItem[]) => JSON.stringify({ ...e, at: new Date(e.at).toISOString(), items });

/** The SSE message of an event as bytes: `event:` its SSE name, `data:` its JSON, `id:` its seq unless it is live only (as Hono's writeSSE writes it). */
function frameOf(e: TroupeEvent, json: string, live: boolean): SseFrame {
  const data = terminalSafeJson(json);
  const name = sseEventName(e.type);
  const bytes = Buffer.from(live ? `event: ${name}\ndata: ${data}\n\n` : `event: ${name}\ndata: ${data}\nid: ${e.seq}\n\n`);
  return e.type === 'session_ended' ? { seq: e.seq, live, bytes, ends: true } : { seq: e.seq, live, bytes };
}

/**
 * The SSE frame of an event and the display state after it (the fold all readers of a session share): worded,
 * redacted and serialised once, however many read it. Redaction is screened: the event is serialised with its
 * items and that text searched once for anything the redactor would change; only when something is there is
 * the event redacted (every string, as `redactDeep`), and worded and serialised again from the redacted copy,
 * so its items never quote what the event hid.
 */
export function sseFrame(e: TroupeEvent, state: DisplayState, names: DisplayNames, redactor: Redactor = processRedactor()): { frame: SseFrame; state: DisplayState } {
  const live = isLiveOnly(e.type);
  // Silent events (streamed words above all) have no items and leave the fold as it was.
  const fast = SILENT_EVENTS.has(e.type) ? { state, items: [] } : displayStep(state, e, names);
  const json = rawJson(e, fast.items);
  if (redactor.screen && !redactor.screen.test(json)) return { frame: frameOf(e, json, live), state: fast.state };
  const shown = redactDeep(e, redactor);
  const slow = displayStep(state, shown, names);
  return { frame: frameOf(e, rawJson(shown, slow.items), live), state: slow.state };
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

import type { TroupeEvent, TroupeEventName } from '../engine/event-map.js';
import type { DisplayItem } from '../report/display-items.js';
import { eventJson } from '../report/event-lines.js';

/** The SSE name of troupe's `error` event: EventSource fires `onerror` for a message named `error`, as if the connection failed. */
export const SSE_ERROR_EVENT = 'troupe_error';

/** The name an event goes out under on an SSE stream: its type, except `error` (sent as `troupe_error`). */
export function sseEventName(type: TroupeEventName | string): string {
  return type === 'error' ? SSE_ERROR_EVENT : type;
}

/**
 * One SSE message for an event, as both backends send it: named by the event's type (`error` as
 * `troupe_error`); `data` is the event's JSON line (as `--json` prints it, `type` unchanged) plus `items`,
 * its display items (what the CLI prints and the UI shows, worded once).
 */
export function sseMessage(e: TroupeEvent, items: readonly DisplayItem[]): { event: string; data: string } {
  return { event: sseEventName(e.type), data: eventJson(e, { items }) };
}

import type { TroupeEvent } from '../engine/event-map.js';
import type { DisplayItem } from '../report/display-items.js';
import { eventJson } from '../report/event-lines.js';

/**
 * One SSE message for an event, as both backends send it: named by the event's type; `data` is the event's JSON
 * line (as `--json` prints it) plus `items`, its display items (what the CLI prints and the UI shows, worded once).
 */
export function sseMessage(e: TroupeEvent, items: readonly DisplayItem[]): { event: string; data: string } {
  return { event: e.type, data: eventJson(e, { items }) };
}

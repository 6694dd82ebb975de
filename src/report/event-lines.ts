import type { MachineDefinition } from '../engine/definition.js';
import type { TroupeEvent, TroupeEventName } from '../engine/event-map.js';
import { displayFold, displayNames, type DisplayItem } from './display-items.js';
import { terminalSafeJson } from './terminal-safe.js';

/** Turns events into the lines of a readable transcript; keeps what a line needs from earlier events. */
export type EventLines = (e: TroupeEvent) => string[];

// Lines about the session as a whole start at the margin; the rest are indented under the turn they belong to.
const AT_MARGIN = new Set<TroupeEventName>(['awaiting_user', 'mode_changed', 'fanout', 'joined', 'session_detached', 'session_ended']);
// The session's own end lines start with a capital, as headings of the run's end.
const HEADINGS = new Set<TroupeEventName>(['session_detached', 'session_ended']);

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** One display item as transcript lines (the CLI's styling: margins, marks, indented words). */
export function itemLines(item: DisplayItem): string[] {
  switch (item.kind) {
    case 'header':
      return [item.text, `${item.label}: ${item.brief}`, ''];
    case 'user':
      // The brief is the first thing the user types; the header already showed it.
      return item.brief ? [] : [`› ${item.text}`];
    case 'command':
      return [`› ${item.text}`];
    case 'progress':
      return [];
    case 'turn':
      return [`▸ ${item.where} (turn ${item.turn})`, ...item.text.split('\n').map((line) => `  ${line}`)];
    case 'directive':
      return [`  ${item.mark} ${item.text}`];
    case 'arbitration':
      return [`  arbiter: ${item.text}`];
    case 'transition':
      return [item.text, ...(item.reason !== null ? [`  reason: ${item.reason}`] : []), ''];
    case 'output':
      return [`${capital(item.title)}:`, ...item.lines.map((line) => `  ${line}`)];
    case 'note': {
      const text = HEADINGS.has(item.event) ? capital(item.text) : item.text;
      const marked = `${item.mark ?? '•'} ${text}`;
      if (HEADINGS.has(item.event)) return [text];
      return [AT_MARGIN.has(item.event) ? marked : `  ${marked}`];
    }
  }
}

/** A transcript formatter for one session: feed it the events in order, print the lines it returns. */
export function eventLines(def: MachineDefinition): EventLines {
  const items = displayFold(displayNames(def));
  return (e) => items(e).flatMap(itemLines);
}

/** An event as one JSON line (the `--json` stream): the time printed as ISO 8601; `extra` fields (SSE's `items`) are added. */
export function eventJson(e: TroupeEvent, extra: Record<string, unknown> = {}): string {
  return terminalSafeJson(JSON.stringify({ ...e, at: new Date(e.at).toISOString(), ...extra }));
}

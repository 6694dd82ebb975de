import type { MachineDefinition } from '../engine/definition.js';
import type { TroupeEvent, TroupeEventName } from '../engine/event-map.js';
import type { DisplayItem, DisplayNames, DisplayState } from './display-item.js';
import { itemsOf } from './event-items.js';
import { displayName, formatPath } from './names.js';

export type { DisplayItem, DisplayKind, DisplayNames, DisplayState, ItemBase, Tone } from './display-item.js';

/** Names from a session's definition (the same helpers `!status`, `show` and the UI use). */
export function displayNames(def: MachineDefinition): DisplayNames {
  return { name: (id) => displayName(def, id), path: (key) => formatPath(def, key), workflow: def.kind === 'workflow', title: def.name };
}

/** Names when no definition is at hand: ids and state keys as stored. */
export function plainNames(title: string): DisplayNames {
  return { name: (id) => (id === 'user' ? 'You' : id), path: (key) => key, workflow: false, title };
}

/** The state before any event. */
export const DISPLAY_START: DisplayState = { labels: {}, briefNext: false, lastError: null, lastRetry: null, rounds: {} };

/**
 * Events that show nothing, on purpose: where the chart is (the state line shows it), streamed words (the
 * live area shows them), usage (views read the meter: `session.usage()`), predictions (the state line and !status read the latest). Every other event yields items.
 */
export const SILENT_EVENTS: ReadonlySet<TroupeEventName> = new Set<TroupeEventName>(['state_entered', 'major_entered', 'major_exited', 'agent_delta', 'usage', 'prediction']);

// A copy of a record with one key set. Not `{ ...record, [key]: value }`: on Node 20 a literal that starts with a
// spread and adds a key the spread object lacks costs microseconds (see event-items.ts); this costs a tenth.
function withKey<V>(record: Readonly<Record<string, V>>, key: string, value: V): Record<string, V> {
  const copy: Record<string, V> = Object.assign({}, record);
  copy[key] = value;
  return copy;
}

/** The items of one event, and the state after it (pure). */
export function displayStep(state: DisplayState, e: TroupeEvent, names: DisplayNames): { state: DisplayState; items: DisplayItem[] } {
  const items = itemsOf(e, names, state);
  switch (e.type) {
    case 'session_started':
      return { state: { ...state, briefNext: true }, items };
    case 'user_input':
      return { state: { ...state, briefNext: false, lastError: null, lastRetry: null }, items };
    case 'directive':
      return { state: state.labels[e.path] === e.directive.transition ? state : { ...state, labels: withKey(state.labels, e.path, e.directive.transition) }, items };
    case 'agent_started':
    case 'agent_message':
      return { state: state.lastError === null && state.lastRetry === null ? state : { ...state, lastError: null, lastRetry: null }, items };
    case 'retry':
      return { state: { ...state, lastRetry: e.reason }, items };
    case 'error':
      return { state: { ...state, lastError: e.message, lastRetry: null }, items };
    case 'debate_ended':
      return { state: { ...state, rounds: withKey(state.rounds, e.state, (state.rounds[e.state] ?? 0) + e.rounds) }, items };
    default:
      return { state, items };
  }
}

/** A display fold for one session: feed it the events in order, show the items it returns. */
export function displayFold(names: DisplayNames): (e: TroupeEvent) => DisplayItem[] {
  let state = DISPLAY_START;
  return (e) => {
    const next = displayStep(state, e, names);
    state = next.state;
    return next.items;
  };
}

/** An item's words with its mark, as one line ("⚖ CEO (round 2): agrees, ..."). */
export function markedText(item: DisplayItem): string {
  return item.mark ? `${item.mark} ${item.text}` : item.text;
}

/** The lines an event reads as on its own (no earlier events): for listings such as `!branches` and `!debate`. */
export function eventWords(e: TroupeEvent, names: DisplayNames): string[] {
  return itemsOf(e, names, DISPLAY_START).map(markedText);
}

import type { Decision } from '../arbiter/proposal.js';
import type { MachineDefinition } from '../engine/definition.js';
import type { TroupeEvent, TroupeEventName } from '../engine/event-map.js';
import { itemsOf } from './event-items.js';
import { displayName, formatPath } from './names.js';

/** How an item reads: plain information, something that went well, something to look at, a failure. */
export type Tone = 'info' | 'ok' | 'warn' | 'error';

/** What every item has: the event it comes from, its tone, and its words (the one wording every view shows). */
export interface ItemBase {
  event: TroupeEventName;
  tone: Tone;
  text: string;
  /** A symbol views put before the text (⚙ ⚖ ⏸ ✓ ...); views use their own bullet when there is none. */
  mark?: string;
  /** Who it is about, by display name ("You" for the user). */
  who?: string;
  /** The persona id behind `who`. */
  persona?: string;
  /** The parallel branch it happened in. */
  branch?: string;
}

/** One thing a view shows for an event: a transcript entry, a note, a decision. Views style items; they do not word them. */
export type DisplayItem = ItemBase &
  (
    | { kind: 'header'; brief: string; label: 'Brief' | 'Input' }
    | { kind: 'user'; brief: boolean }
    | { kind: 'command' }
    | { kind: 'progress' }
    | { kind: 'turn'; turnId: string; turn: number; where: string; state: string }
    | { kind: 'directive'; turnId: string; state: string; transition: string }
    | { kind: 'arbitration'; from: string; decision: Decision }
    | { kind: 'transition'; from: string; to: string; label: string; reason: string | null }
    | { kind: 'note' }
    | { kind: 'output'; title: string; lines: string[] }
  );

/** The kinds of display items. */
export type DisplayKind = DisplayItem['kind'];

/** How items name things: personas by display name, states as paths people read. */
export interface DisplayNames {
  name(id: string): string;
  path(key: string): string;
  /** The session runs a declarative workflow (its header says so; its turns carry no directive). */
  workflow: boolean;
  /** The definition's name. */
  title: string;
}

/** Names from a session's definition (the same helpers `!status`, `show` and the UI use). */
export function displayNames(def: MachineDefinition): DisplayNames {
  return { name: (id) => displayName(def, id), path: (key) => formatPath(def, key), workflow: def.kind === 'workflow', title: def.name };
}

/** Names when no definition is at hand: ids and state keys as stored. */
export function plainNames(title: string): DisplayNames {
  return { name: (id) => (id === 'user' ? 'You' : id), path: (key) => key, workflow: false, title };
}

/** What items need from earlier events: the last directive given in each state (a transition's label), and whether the next user line is the brief. */
export interface DisplayState {
  readonly labels: Readonly<Record<string, string>>;
  readonly briefNext: boolean;
}

/** The state before any event. */
export const DISPLAY_START: DisplayState = { labels: {}, briefNext: false };

/**
 * Events that show nothing, on purpose: where the chart is (the state line shows it), streamed words (the
 * live area shows them), usage (views read the meter: `session.usage()`). Every other event yields items.
 */
export const SILENT_EVENTS: ReadonlySet<TroupeEventName> = new Set<TroupeEventName>(['state_entered', 'major_entered', 'major_exited', 'agent_delta', 'usage']);

/** The items of one event, and the state after it (pure). */
export function displayStep(state: DisplayState, e: TroupeEvent, names: DisplayNames): { state: DisplayState; items: DisplayItem[] } {
  switch (e.type) {
    case 'session_started':
      return { state: { ...state, briefNext: true }, items: itemsOf(e, names, state) };
    case 'user_input':
      return { state: { ...state, briefNext: false }, items: itemsOf(e, names, state) };
    case 'directive':
      return { state: { ...state, labels: { ...state.labels, [e.path]: e.directive.transition } }, items: itemsOf(e, names, state) };
    default:
      return { state, items: itemsOf(e, names, state) };
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

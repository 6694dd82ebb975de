import type { Decision } from '../arbiter/proposal.js';
import type { TroupeEventName } from '../engine/event-map.js';

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

/** What items need from earlier events: the last directive given in each state (a transition's label), and whether the next user line is the brief. */
export interface DisplayState {
  readonly labels: Readonly<Record<string, string>>;
  readonly briefNext: boolean;
}

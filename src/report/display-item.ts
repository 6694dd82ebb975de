import type { Decision } from '../arbiter/proposal.js';
import type { TroupeEventName } from '../engine/event-map.js';

/** How an item reads: plain information, something that went well, something to look at, a failure. */
export type Tone = 'info' | 'ok' | 'warn' | 'error';

/**
 * The symbols views put before an item's text. Each is drawn by the monospace and sans fonts terminals and the
 * browser fall back on (DejaVu: ⏸ and ⤷ were not, and showed as an empty box): tests/report/marks.test.ts.
 */
export const MARKS = ['⚙', '✗', '⚠', '✓', '✔', '⇉', '⇇', '⚖', '↳', '◂', '↻', '↺'] as const;

/** A symbol of MARKS. */
export type Mark = (typeof MARKS)[number];

/** What every item has: the event it comes from, its tone, and its words (the one wording every view shows). */
export interface ItemBase {
  event: TroupeEventName;
  tone: Tone;
  text: string;
  /** A symbol views put before the text (⚙ ⚖ ◂ ✓ ...); views use their own bullet when there is none. */
  mark?: Mark;
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

/** What items need from earlier events. */
export interface DisplayState {
  /** The last directive given in each state (a transition's label). */
  readonly labels: Readonly<Record<string, string>>;
  /** Whether the next user line is the brief: a guess for sessions stored before `user_input` said what it is (`kind`). */
  readonly briefNext: boolean;
  /** The last error shown in full: the lines after it that repeat it (the failed turn's move, the pause) point to it instead. */
  readonly lastError: string | null;
  /** The reason of the last retry shown: the next retry for the same reason does not repeat it. */
  readonly lastRetry: string | null;
  /** Rounds of the debates over so far, by state: a later debate in the same state (after a revision) numbers its rounds on from them. */
  readonly rounds: Readonly<Record<string, number>>;
}

import type { Directive } from '../directive/schema.js';
import type { TroupeEvent } from '../engine/event-map.js';

/** One entry of a session's transcript, as the events tell it. */
export interface TranscriptEntry {
  kind: 'agent' | 'user' | 'note';
  turn: number;
  persona?: string;
  path?: string;
  text: string;
  directive?: Directive;
  status?: 'ok' | 'aborted' | 'invalid';
  flags?: string[];
}

/**
 * Folds events into a transcript, one event at a time (the full-history prompt keeps one as the session
 * goes; exports build one from the stored log): what each persona said with its directive or why it has
 * none, what the user typed, turns cut off, and failures.
 */
export class TranscriptFold {
  readonly entries: TranscriptEntry[] = [];
  private turn = 0;
  private readonly invalid = new Map<string, string>();
  private readonly byTurnId = new Map<string, TranscriptEntry>();

  /** Adds one event (events that do not change the transcript are ignored). */
  add(e: TroupeEvent): void {
    switch (e.type) {
      case 'user_input':
        this.entries.push({ kind: 'user', turn: this.turn, text: e.text });
        break;
      case 'directive_invalid':
        if (!e.repairing) this.invalid.set(e.turn_id, e.error);
        break;
      case 'agent_message': {
        this.turn = e.turn;
        const error = this.invalid.get(e.turn_id);
        const entry: TranscriptEntry = { kind: 'agent', turn: e.turn, persona: e.persona, path: e.path, text: e.text, status: 'invalid', ...(error ? { flags: [error] } : {}) };
        this.invalid.delete(e.turn_id);
        this.byTurnId.set(e.turn_id, entry);
        this.entries.push(entry);
        break;
      }
      case 'directive': {
        const entry = this.byTurnId.get(e.turn_id);
        if (entry) {
          entry.directive = e.directive;
          entry.status = 'ok';
          this.byTurnId.delete(e.turn_id);
        }
        break;
      }
      case 'agent_aborted':
        this.entries.push({ kind: 'agent', turn: this.turn, persona: e.persona, text: '', status: 'aborted', flags: [e.reason] });
        break;
      case 'error':
        this.entries.push({ kind: 'note', turn: this.turn, text: `${e.where}: ${e.message}` });
        break;
      default:
        break;
    }
  }
}

/** The transcript of a whole event log. */
export function transcriptOf(events: readonly TroupeEvent[]): TranscriptEntry[] {
  const fold = new TranscriptFold();
  for (const e of events) fold.add(e);
  return fold.entries;
}

import type { TroupeEvent } from '../engine/event-map.js';
import { processRedactor, type Redactor } from '../llm/redact.js';
import { DISPLAY_START, displayNames, displayStep, type DisplayNames, type DisplayState } from '../report/display-items.js';
import type { TroupeSession } from '../session/troupe-session.js';
import type { SseClient } from './sse-client.js';
import { sseFrame, type SseFrame } from './sse-frame.js';

/** How many of a session's newest stored events its feed keeps, so a reader joining (or coming back) within them reads nothing from the store. */
export const FEED_RECENT = 32;

interface Kept {
  e: TroupeEvent;
  /** The display state before the event (its frame is worded from it). */
  before: DisplayState;
  frame: SseFrame | null;
}

/**
 * A hosted session's events as SSE frames, for all of its readers at once: each event is worded (its display
 * items, folded over the session's events), redacted and serialised once, when the first reader needs it, and
 * the same bytes go to every reader. The newest stored events are kept, so most readers start without reading
 * the store.
 */
export class EventFeed {
  private readonly readers = new Set<SseClient<SseFrame>>();
  private readonly names: DisplayNames;
  private state: DisplayState;
  private kept: Kept[] = [];
  /** The feed holds every stored event after this seq. */
  private from: number;
  private readonly unsubscribe: () => void;

  /**
   * Follows `session` from now on. A session reopened from the store has published before: its fold starts
   * from the events it holds in memory (a display state depends only on the last directive per state and
   * whether the brief is next, which a window of hundreds of events always holds).
   */
  constructor(session: TroupeSession, private readonly redactor: Redactor = processRedactor()) {
    this.names = displayNames(session.def);
    let state = DISPLAY_START;
    for (const e of session.recent()) state = displayStep(state, e, this.names).state;
    this.state = state;
    this.from = session.recent().at(-1)?.seq ?? 0;
    this.unsubscribe = session.subscribe((e) => this.publish(e));
  }

  /** Readers following the session now. */
  get size(): number {
    return this.readers.size;
  }

  /** True when the feed holds every stored event after `after` (a reader resuming there needs nothing from the store). */
  covers(after: number): boolean {
    return after >= this.from;
  }

  /**
   * Adds a reader: the kept frames after `after` are queued for it at once (when `covers(after)`), then every
   * new event. Returns the function that removes it.
   */
  attach(client: SseClient<SseFrame>, after: number): () => void {
    if (this.covers(after)) for (const k of this.kept) if (k.e.seq > after) client.push(this.frameOf(k));
    this.readers.add(client);
    return () => this.readers.delete(client);
  }

  /** Stops following the session (it was let go of); readers stay until they leave. */
  close(): void {
    this.unsubscribe();
  }

  private publish(e: TroupeEvent): void {
    const before = this.state;
    const live = e.type === 'agent_delta';
    // Without readers a delta is only folded; a stored event is kept, its frame made when a reader needs it.
    if (this.readers.size === 0 && live) {
      this.state = displayStep(before, e, this.names).state;
      return;
    }
    const k: Kept = { e, before, frame: null };
    if (this.readers.size > 0) {
      const made = sseFrame(e, before, this.names, this.redactor);
      k.frame = made.frame;
      this.state = made.state;
      for (const reader of this.readers) reader.push(made.frame);
    } else this.state = displayStep(before, e, this.names).state;
    if (live) return;
    this.kept.push(k);
    if (this.kept.length > FEED_RECENT) this.from = this.kept.shift()!.e.seq;
  }

  private frameOf(k: Kept): SseFrame {
    return (k.frame ??= sseFrame(k.e, k.before, this.names, this.redactor).frame);
  }
}

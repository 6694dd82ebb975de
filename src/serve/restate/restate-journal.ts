import type { ObjectContext } from '@restatedev/restate-sdk';
import type { TroupeEvent } from '../../engine/event-map.js';
import type { EngineInput } from '../../engine/input-events.js';
import type { SessionState } from '../../engine/session.js';
import type { JournalPort } from '../../kernel/ports.js';
import type { UsageState } from '../../usage/usage-meter.js';
import { appendToChunks, chunkKey, chunkOf } from './event-log.js';
import { headState, type SessionHead } from './records.js';
import { KEYS } from './session-store.js';

/** How often (session clock) a running session's whole engine state is written when its status does not change. */
const STATE_EVERY_MS = 1_000;

/**
 * The journal port on Restate: the kernel's steps and facts are kept in memory and written to the session
 * object at each quiet point of the invocation (`flush`): the new events into the chunks they fall in (only
 * the open chunk is rewritten), the head readers show and the engine state. Writes are `ctx.set` commands
 * of the invocation, so a replay writes the same.
 */
export class RestateJournal implements JournalPort {
  private unwritten: TroupeEvent[] = [];
  private written: number;
  private changed = false;
  private stateChanged = false;
  private statusWritten: string;
  private stateWrittenAt = -Infinity;
  private closed = false;

  constructor(
    private readonly ctx: Pick<ObjectContext, 'set' | 'key'>,
    private current: SessionState,
    lastSeq: number,
    /** The stored events of the chunk the next event goes in. */
    private open: TroupeEvent[],
    private readonly clock: () => number,
    /** The meter's totals now (shown with the session). */
    private readonly usage: () => UsageState | null = () => null,
  ) {
    this.written = lastSeq;
    this.statusWritten = current.status;
  }

  /** The session object, for messages. */
  get location(): string {
    return `Restate object troupe_session/${this.ctx.key}`;
  }

  /** The engine state after the last step. */
  get state(): SessionState {
    return this.current;
  }

  step(_input: EngineInput, events: TroupeEvent[], next: SessionState): void {
    if (this.closed) return;
    for (const e of events) this.unwritten.push(e);
    if (next !== this.current) this.stateChanged = true;
    this.current = next;
    this.changed = true;
  }

  facts(events: TroupeEvent[]): void {
    if (this.closed) return;
    for (const e of events) this.unwritten.push(e);
  }

  /** Writes the events since the last flush and the head (nothing when nothing happened). */
  flush(): void {
    if (this.closed || (this.unwritten.length === 0 && !this.changed)) return;
    const events = this.unwritten;
    this.unwritten = [];
    this.changed = false;
    if (events.length > 0) {
      const writes = appendToChunks(this.open, events);
      for (const w of writes) this.ctx.set(chunkKey(w.chunk), w.events);
      this.written = events[events.length - 1]!.seq;
      const last = writes[writes.length - 1]!;
      this.open = chunkOf(this.written + 1) === last.chunk ? last.events : [];
    }
    const head: SessionHead = { lastSeq: this.written, updatedAt: new Date(this.clock()).toISOString(), state: headState(this.current), usage: this.usage() };
    this.ctx.set(KEYS.head, head);
    // The whole engine state too, so a line checked meanwhile (would it cut off the call in flight?) and `!status`
    // see it: when the status changes, else at most once a second of the session's clock (a workflow's state
    // holds its contexts, and rewriting it at every turn would grow the invocation's journal with their square).
    const now = this.clock();
    if (this.stateChanged && (this.current.status !== this.statusWritten || now - this.stateWrittenAt >= STATE_EVERY_MS)) {
      this.ctx.set(KEYS.state, this.current);
      this.stateChanged = false;
      this.statusWritten = this.current.status;
      this.stateWrittenAt = now;
    }
  }

  /** The seq of the last event written. */
  get lastSeq(): number {
    return this.written;
  }

  /** Writes the engine state if the last flushes left it unwritten (the invocation is ending). */
  flushState(): void {
    if (this.closed || !this.stateChanged) return;
    this.ctx.set(KEYS.state, this.current);
    this.stateChanged = false;
  }

  /** Nothing more is written (the invocation is over). */
  async close(): Promise<void> {
    this.closed = true;
  }
}

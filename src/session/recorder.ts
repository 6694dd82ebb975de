import type { TroupeEvent } from '../engine/event-map.js';
import type { EngineInput } from '../engine/input-events.js';
import type { SessionState } from '../engine/session.js';
import type { SessionHandle } from '../store/store.js';

/** What the recorder stores beside the engine snapshot at a checkpoint. */
export interface RecorderSources {
  clock: () => number;
  /** Memory module state (its toJSON()), stored opaque. */
  memory: () => unknown;
  /** Usage totals, stored opaque. */
  usage: () => unknown;
  /** The seq of the last stored event. */
  lastSeq: () => number;
}

/**
 * Persists a running session: every step's input and events are appended to the journal before the
 * step's effects run (O(1) per step), and the small session document gets a checkpoint whenever the
 * session reaches a new turn or status, on memory compression, and on close.
 */
export class JournalRecorder {
  private records: number;
  private last: { turn: number; status: string };
  private failed = false;

  constructor(
    readonly handle: SessionHandle,
    journalLength: number,
    private snapshot: SessionState,
    private readonly sources: RecorderSources,
  ) {
    this.records = journalLength;
    this.last = { turn: snapshot.turn, status: snapshot.status };
  }

  /**
   * Appends one step, and checkpoints when the session reached a new turn or status; throws when either
   * file cannot be written (the step's effects must not run: no model call follows a failed write).
   */
  step(input: EngineInput, events: TroupeEvent[], next: SessionState): void {
    this.guard(() => this.handle.append({ n: this.records + 1, input, events }));
    this.records += 1;
    this.snapshot = next;
    if (next.turn !== this.last.turn || next.status !== this.last.status) this.checkpoint({ sync: next.status !== 'running' });
  }

  /** Appends runtime facts (usage, memory work, retries); throws when the journal cannot be written. */
  facts(events: TroupeEvent[]): void {
    this.guard(() => this.handle.append({ n: this.records + 1, events }));
    this.records += 1;
  }

  /**
   * Writes a checkpoint of the current snapshot and module state, synchronously; throws when it cannot be
   * written. `sync` also flushes the journal to the disk first: done when the session pauses or ends.
   */
  checkpoint(options: { sync?: boolean } = {}): void {
    const s = this.snapshot;
    this.guard(() =>
      this.handle.checkpoint(
        { records: this.records, lastSeq: this.sources.lastSeq(), snapshot: s, memory: this.sources.memory(), usage: this.sources.usage() },
        { mode: s.mode, brief: s.brief, updatedAt: new Date(this.sources.clock()).toISOString() },
        options,
      ),
    );
    this.last = { turn: s.turn, status: s.status };
  }

  /** Writes the final checkpoint (unless a write already failed: the files keep the last saved step) and releases the session; a failed write is thrown. */
  async close(): Promise<void> {
    try {
      if (!this.failed) this.checkpoint({ sync: true });
    } finally {
      await this.handle.close();
    }
  }

  private guard(write: () => void): void {
    try {
      write();
    } catch (error) {
      this.failed = true;
      throw error;
    }
  }
}

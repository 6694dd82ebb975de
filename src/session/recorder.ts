import type { TroupeEvent } from '../engine/event-map.js';
import type { EngineInput } from '../engine/input-events.js';
import type { SessionState } from '../engine/session.js';
import type { JournalPort, JournalSources } from '../kernel/ports.js';
import type { SessionHandle } from '../store/store.js';

/** What the recorder stores beside the engine snapshot at a checkpoint (memory and usage are stored opaque, serialised before the checkpoint returns). */
export interface RecorderSources extends JournalSources {
  clock: () => number;
}

// The checkpoint is a cache (reopening folds the journal lines after it), so a fast session need not
// rewrite the document at every turn: a new turn is checkpointed once a second, or every 256 lines.
const CHECKPOINT_MS = 1_000;
const CHECKPOINT_LINES = 256;

/**
 * Persists a running session: every step's input and events are appended to the journal before the
 * step's effects run (O(1) per step), and the small session document gets a checkpoint whenever the
 * status changes (a move to `running` with the step after it, so no document rewrite sits in front of
 * the model call that step starts), on close, and at a new turn or a memory compression once the last
 * checkpoint is a second or 256 journal lines old (so with real models, at every turn).
 */
export class JournalRecorder implements JournalPort {
  private records: number;
  private last: { turn: number; status: string; records: number; at: number };
  private failed = false;
  // A move to `running` not written yet (it is, with the next step).
  private workDue = false;

  constructor(
    readonly handle: SessionHandle,
    journalLength: number,
    private snapshot: SessionState,
    private readonly sources: RecorderSources,
  ) {
    this.records = journalLength;
    // As if long ago: the first new turn is checkpointed (and the clock is read once per checkpoint, as ever).
    this.last = { turn: snapshot.turn, status: snapshot.status, records: journalLength, at: -Infinity };
  }

  /** The session's file. */
  get location(): string {
    return this.handle.location;
  }

  /**
   * Appends one step, and checkpoints when the status changed or (see checkpointIfDue) the turn did; throws
   * when either file cannot be written (the step's effects must not run: no model call follows a failed write).
   */
  step(input: EngineInput, events: TroupeEvent[], next: SessionState): void {
    this.guard(() => this.handle.append({ n: this.records + 1, input, events }));
    this.records += 1;
    this.snapshot = next;
    // Going to work is written with the step after it, not in front of the model call this step starts.
    if (next.status === 'running' && this.last.status !== 'running' && !this.workDue) this.workDue = true;
    else if (next.status !== this.last.status) this.checkpoint({ sync: next.status !== 'running' });
    else if (next.turn !== this.last.turn) this.checkpointIfDue({ sync: next.status !== 'running' });
  }

  /** Checkpoints unless the last one is recent (under a second and 256 journal lines old): at a new turn, after memory compression. */
  checkpointIfDue(options: { sync?: boolean } = {}): void {
    if (this.records - this.last.records >= CHECKPOINT_LINES) return this.checkpoint(options);
    const now = this.sources.clock();
    if (now - this.last.at >= CHECKPOINT_MS) this.checkpoint(options, now);
  }

  /** Appends runtime facts (usage, memory work, retries); throws when the journal cannot be written. */
  facts(events: TroupeEvent[]): void {
    this.guard(() => this.handle.append({ n: this.records + 1, events }));
    this.records += 1;
  }

  /**
   * Writes a checkpoint of the current snapshot and module state, synchronously (the store flushes the
   * journal lines it covers to the disk first); throws when it cannot be written. `sync` also makes the
   * new document durable: done when the session pauses or ends; `at` is the time it is stamped with
   * (read from the clock when not given).
   */
  checkpoint(options: { sync?: boolean } = {}, at = this.sources.clock()): void {
    const s = this.snapshot;
    this.guard(() =>
      this.handle.checkpoint(
        { records: this.records, lastSeq: this.sources.lastSeq(), snapshot: s, memory: this.sources.memory(), usage: this.sources.usage() },
        { mode: s.mode, brief: s.brief, updatedAt: new Date(at).toISOString() },
        options,
      ),
    );
    this.last = { turn: s.turn, status: s.status, records: this.records, at };
    this.workDue = false;
  }

  /** Writes the final checkpoint (unless a write already failed: the files keep the last saved step) and releases the session; a failed write is thrown. */
  async close(): Promise<void> {
    // A session that never started (no brief) is nothing to resume: it is removed, not left behind as "not started".
    if (this.snapshot.status === 'idle' && this.handle.discard && !this.failed) return this.handle.discard();
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

import type { TroupeEvent } from '../engine/event-map.js';
import type { EngineInput } from '../engine/input-events.js';
import type { SessionState } from '../engine/session.js';
import type { JournalPort, JournalSources } from '../kernel/ports.js';
import type { SessionHandle } from '../store/store.js';

/** What the recorder stores beside the engine snapshot at a checkpoint (memory and usage are stored opaque, serialised when the checkpoint is taken). */
export interface RecorderSources extends JournalSources {
  clock: () => number;
  /** Journal lines the document may lag at a point made durable once a second before it is rewritten there (default 32; 0: at every such point). */
  checkpointLines?: number;
}

// The checkpoint is a cache (reopening folds the journal lines after it), so a fast session need not
// rewrite the document at every turn: a new turn is made durable once a second, or every 256 lines.
const CHECKPOINT_MS = 1_000;
const CHECKPOINT_LINES = 256;
// At a point made durable once a second, the document is rewritten only once it is this many journal lines
// behind; before that the journal alone is flushed. A document rewrite is a temp file created, written,
// flushed and renamed in a directory every session shares: a served session of six turns wrote three before
// its close (created, its first turn, its pause), and writes one.
const CHECKPOINT_MIN_LINES = 32;

/** A checkpoint asked for: with `document`, the document is rewritten; without, only the journal is flushed. */
type Wanted = { sync: boolean; document: boolean };

/**
 * Persists a running session: every step's input and events are handed to the journal synchronously, before the
 * step's effects run (O(1) per step; the file store writes the input and leaves out the events step() derived from
 * it, which its readers replay: journal format 8), one line per turn: the kernel gives a step's line the usage
 * held for it and the start of the calls it begins. Facts no step carries (memory work, retries, tool runs,
 * a usage alone) are lines of their own, written before anyone sees them. The small session document gets a checkpoint when the
 * session ends, on close, and at a new turn, a status change (a move to `running` looked at with the step
 * after it, so no document rewrite sits in front of the model call that step starts) or a memory compression
 * once the last checkpoint is 256 journal lines old, or a second and 32 lines old; at such a point a second
 * after the last one with fewer lines behind, only the journal is flushed to the disk (and, at a pause, its
 * directory): a turn that ends waiting for the user is not a rewrite every turn. Readers of a stored
 * session's status fold the journal lines after the checkpoint (listings, reports, the serve views). A
 * checkpoint is taken once the
 * step that asked for it has been delivered (its events are in memory and usage too) and written off the
 * event loop, one at a time: those asked for while one is being written become one, of the state when it
 * starts. A crash before it lands loses nothing: the journal holds every step, and reopening folds the
 * lines after the last checkpoint written.
 */
export class JournalRecorder implements JournalPort {
  /** A call's usage waits for the step its answer leads to, and is written in that step's line. */
  readonly joinsFacts = true;
  private records: number;
  private last: { status: string; records: number };
  // When the journal was last made durable (a checkpoint, or a flush of the journal alone).
  private durableAt = -Infinity;
  private failure: unknown = null;
  private closing = false;
  // A checkpoint asked for and not yet taken, and the write in progress (with those asked for after it).
  private wanted: Wanted | null = null;
  private writing: Promise<void> | null = null;
  // A move to `running` whose checkpoint rule is looked at with the next step.
  private workDue = false;

  constructor(
    readonly handle: SessionHandle,
    journalLength: number,
    private snapshot: SessionState,
    private readonly sources: RecorderSources,
  ) {
    this.records = journalLength;
    // As if long ago (durableAt): the first new turn is made durable (and the clock is read once per such point, as ever).
    this.last = { status: snapshot.status, records: journalLength };
  }

  /** The session's file. */
  get location(): string {
    return this.handle.location;
  }

  /**
   * Appends one step, and asks for a checkpoint when the status changed or (see checkpointIfDue) the turn
   * did; throws when the journal cannot be written, or a checkpoint failed (the step's effects must not run).
   */
  step(input: EngineInput, events: TroupeEvent[], next: SessionState, facts = 0): void {
    this.append(facts > 0 ? { n: this.records + 1, input, events, facts } : { n: this.records + 1, input, events });
    const before = this.snapshot;
    this.snapshot = next;
    // The end is written at once (a session that ended must never list as resumable).
    if (next.status === 'ended') {
      if (this.last.status !== 'ended') this.want({ sync: true, document: true });
    }
    // Going to work is looked at with the step after it, not in front of the model call this step starts.
    else if (next.status === 'running' && before.status !== 'running') this.workDue = true;
    // Any other status change goes by the rule a new turn does: the journal holds it, and readers fold the lines after the checkpoint.
    else if (this.workDue || next.status !== before.status || next.turn !== before.turn) {
      this.workDue = false;
      this.checkpointIfDue({ sync: next.status !== 'running' });
    }
  }

  /**
   * Asks for a checkpoint when the last one is 256 journal lines old, or, when the journal was last made durable
   * a second ago or more, for a checkpoint if the last one is 32 lines old and a flush of the journal if not: at a
   * new turn, after memory compression.
   */
  checkpointIfDue(options: { sync?: boolean } = {}): void {
    const behind = this.records - this.last.records;
    if (behind >= CHECKPOINT_LINES) return this.want({ ...options, document: true });
    const document = behind >= (this.sources.checkpointLines ?? CHECKPOINT_MIN_LINES);
    if (this.wanted) return this.want({ ...options, document });
    const now = this.sources.clock();
    if (now - this.durableAt >= CHECKPOINT_MS) this.want({ ...options, document });
  }

  /** Appends runtime facts (usage, memory work, retries); throws when the journal cannot be written. */
  facts(events: TroupeEvent[]): void {
    this.append({ n: this.records + 1, events });
  }

  /** Resolves once no checkpoint is asked for or being written (a failed one is the session's fault, not thrown here). */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Writes the final checkpoint, made durable (unless a write already failed: the files keep the last saved step), and releases the session; a failed write is thrown. */
  async close(): Promise<void> {
    // A session that never started (no brief) is nothing to resume: it is removed, not left behind as "not started".
    if (this.snapshot.status === 'idle' && this.handle.discard && this.failure === null) {
      this.closing = true;
      await this.flushed();
      return this.handle.discard();
    }
    const before = this.failure;
    this.closing = true;
    try {
      await this.flushed();
      if (this.failure === null) await this.take({ sync: true, document: true });
    } finally {
      await this.handle.close();
    }
    if (this.failure !== before) throw this.failure;
  }

  private append(record: { n: number; input?: EngineInput; events: TroupeEvent[]; facts?: number }): void {
    if (this.failure !== null) throw this.failure;
    try {
      this.handle.append(record);
    } catch (error) {
      this.failure = error;
      throw error;
    }
    this.records += 1;
  }

  private want(options: { sync?: boolean; document: boolean }): void {
    if (this.failure !== null || this.closing) return;
    this.wanted = { sync: (this.wanted?.sync ?? false) || options.sync === true, document: (this.wanted?.document ?? false) || options.document };
    // Taken after this turn of the event loop's work: the step's events have been delivered by then.
    this.writing ??= Promise.resolve().then(() => this.drain());
  }

  private async drain(): Promise<void> {
    try {
      while (this.wanted && this.failure === null) {
        const options = this.wanted;
        this.wanted = null;
        await this.take(options);
      }
    } finally {
      this.wanted = null;
      this.writing = null;
    }
  }

  /**
   * Takes a checkpoint of the state now (or, unless `document`, flushes the journal alone) and waits for it to be
   * written; a failure stops the session (the kernel is told).
   */
  private async take(options: Wanted): Promise<void> {
    const s = this.snapshot;
    const at = this.sources.clock();
    try {
      if (!options.document) {
        const flushed = this.handle.flush({ sync: options.sync });
        this.durableAt = at;
        this.workDue = false;
        return await flushed;
      }
      const written = this.handle.checkpoint(
        {
          records: this.records,
          lastSeq: this.sources.lastSeq(),
          snapshot: s,
          memory: this.sources.memory(),
          usage: this.sources.usage(),
          ...(this.sources.transitions ? { transitions: this.sources.transitions() } : {}),
        },
        { mode: s.mode, brief: s.brief, updatedAt: new Date(at).toISOString() },
        options,
      );
      this.last = { status: s.status, records: this.records };
      this.durableAt = at;
      this.workDue = false;
      await written;
    } catch (error) {
      if (this.failure !== null) return;
      this.failure = error;
      if (!this.closing) this.sources.fault(error);
    }
  }
}

import type { MachineDefinition } from '../engine/definition.js';
import type { Effect } from '../engine/effects.js';
import { event, type EngineEvent, type TroupeEvent } from '../engine/event-map.js';
import type { EngineInput } from '../engine/input-events.js';
import type { SessionState } from '../engine/session.js';
import { step } from '../engine/step.js';
import { UserError } from '../errors.js';
import type { TroupeBus } from './bus.js';
import type { EffectPort, JournalPort } from './ports.js';

/** Listens to a session: every published event, with the session state after it. */
export type SessionListener = (e: TroupeEvent, snapshot: SessionState) => void;

/** A session's state could not be saved: it stopped before the next model call; the file keeps the last saved step. */
export class SessionSaveError extends UserError {}

// Streaming deltas repeat the final message piecewise, and a prediction is recomputed from the session
// whenever it is needed: delivered live, never stored.
const LIVE_ONLY: ReadonlySet<string> = new Set<string>(['agent_delta', 'prediction']);

/** True for events delivered live and never stored (they carry the last stored seq, unchanged). */
export function isLiveOnly(type: string): boolean {
  return LIVE_ONLY.has(type);
}

/**
 * The session kernel, the same on every backend: a mailbox of inputs, each folded through the pure
 * `step()`; the step's input and events go to the journal port first, then its events are delivered,
 * then its effects go to the effect port, each after the journal's commit (the effect runner commits a
 * model call's own start with them, just before the call leaves the process). Only this class changes the session state. It does not know
 * where it runs: the embedded backend gives it the journal file and the local effect runner, Restate
 * its object state and journaled steps.
 */
export class SessionKernel {
  private state: SessionState;
  private readonly mailbox: EngineInput[] = [];
  private processing = false;
  private effects: EffectPort | null = null;
  private failure: SessionSaveError | null = null;
  // How deep the kernel's entries (send, publish, batch) are nested: the outermost one commits the journal as it returns.
  private depth = 0;
  private commitDue = false;

  constructor(
    readonly def: MachineDefinition,
    initial: SessionState,
    readonly bus: TroupeBus,
    private readonly journal: JournalPort | null,
  ) {
    this.state = initial;
  }

  /** Connects the effect port (built after the kernel, since it reads the kernel's state). */
  attach(effects: EffectPort): void {
    this.effects = effects;
  }

  /** The session id. */
  get id(): string {
    return this.state.id;
  }

  /** The current session state (plain data; replaced, never changed, by each step). */
  getSnapshot(): SessionState {
    return this.state;
  }

  /** Why the session stopped saving, if it did. */
  get fault(): SessionSaveError | null {
    return this.failure;
  }

  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(listener: SessionListener): () => void {
    const onEvent = (e: TroupeEvent) => listener(e, this.state);
    this.bus.on('*', onEvent);
    return () => this.bus.off('*', onEvent);
  }

  /** Queues an input; it is processed at once unless another is being processed (then right after it). */
  send(input: EngineInput): void {
    if (this.failure) return;
    this.mailbox.push(input);
    if (this.processing) return;
    this.processing = true;
    this.depth += 1;
    try {
      for (let next = this.mailbox.shift(); next && !this.failure; next = this.mailbox.shift()) this.process(next);
    } finally {
      this.processing = false;
      this.mailbox.length = 0;
      this.leave();
    }
  }

  /** Publishes a runtime fact (usage, memory work, a call starting); stored unless it is a streaming delta. */
  publish(e: EngineEvent): void {
    if (this.failure) return;
    this.depth += 1;
    try {
      this.deliverFact(e);
    } finally {
      this.leave(true);
    }
  }

  /** Runs `work` (sends and publishes) as one entry of the kernel: what it journals is written together as it returns, or before an effect leaves. */
  batch(work: () => void): void {
    this.depth += 1;
    try {
      work();
    } finally {
      this.leave();
    }
  }

  /**
   * The barrier before an effect leaves the process: writes what the journal holds unwritten. False when the
   * write failed (the session stopped saving and its work was aborted: the effect must not start).
   */
  commit(): boolean {
    if (this.failure) return false;
    if (!this.journal?.commit) return true;
    try {
      this.journal.commit();
      return true;
    } catch (error) {
      this.stopSaving(error);
      return false;
    }
  }

  // The end of an entry: the outermost one leaves nothing unwritten when control returns to the event loop. A
  // fact published on its own (a model's usage, as its answer arrives) is written with what follows it in the
  // same run of promise callbacks (the answer's step), once they have run: still before any I/O.
  private leave(fact = false): void {
    this.depth -= 1;
    if (this.depth > 0) return;
    if (!fact) this.commit();
    else if (!this.commitDue) {
      this.commitDue = true;
      process.nextTick(() => {
        this.commitDue = false;
        if (this.depth === 0) this.commit();
      });
    }
  }

  private deliverFact(e: EngineEvent): void {
    const live = LIVE_ONLY.has(e.type);
    const stamped = this.bus.stamp(e, !live);
    if (!live && this.journal) {
      try {
        this.journal.facts([stamped]);
      } catch (error) {
        this.stopSaving(error);
        return;
      }
    }
    this.bus.deliver(stamped);
  }

  /** Resolves once nothing is running: no input queued and no model call in flight. */
  async settled(): Promise<void> {
    while (this.effects?.busy) await this.effects.idle();
  }

  private process(input: EngineInput): void {
    const { session, effects } = step(this.def, this.state, input);
    const events: TroupeEvent[] = [];
    const work: Effect[] = [];
    for (const fx of effects) {
      if (fx.type === 'emit') events.push(this.bus.stamp(fx.event));
      else work.push(fx);
    }
    if (this.journal && (session !== this.state || events.length > 0)) {
      try {
        this.journal.step(input, events, session);
      } catch (error) {
        this.stopSaving(error);
        return;
      }
    }
    this.state = session;
    for (const e of events) this.bus.deliver(e);
    // A model call commits itself once its start is journaled too (one write per turn); other work commits here.
    if (work.some((fx) => fx.type !== 'call_agent') && !this.commit()) return;
    for (const fx of work) this.effects?.execute(fx);
  }

  /** Records a save failure: no further step or model call runs; the message names the file and the cause. */
  stopSaving(error: unknown): void {
    if (this.failure) return;
    const cause = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    // The cause already says what to fix (it names the file); this line only adds what it means for the session.
    this.failure = new SessionSaveError(
      `session ${this.state.id} stopped before its next model call: ${cause} — what was saved before is intact; once that is fixed, continue it with troupe resume ${this.state.id.slice(0, 8)}`,
      { cause: error },
    );
    this.effects?.abortAll();
    this.bus.deliver(this.bus.stamp(event('error', { message: this.failure.message, where: 'store' }), false));
  }
}

import type { MachineDefinition } from '../engine/definition.js';
import type { Effect } from '../engine/effects.js';
import { event, type EngineEvent, type TroupeEvent } from '../engine/event-map.js';
import type { EngineInput } from '../engine/input-events.js';
import type { SessionState } from '../engine/session.js';
import { step } from '../engine/step.js';
import { objectList } from '../engine/packed.js';
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
 * `step()`; the step's input and events go to the journal port first (in one line with the usage held for
 * it and the agent_started of the calls it starts: one line per turn), then its events are delivered, then
 * its effects go to the effect port. Only this class changes the session state. It does not know
 * where it runs: the embedded backend gives it the journal file and the local effect runner, Restate
 * its object state and journaled steps.
 */
export class SessionKernel {
  private state: SessionState;
  private readonly mailbox: EngineInput[] = [];
  private processing = false;
  private effects: EffectPort | null = null;
  private failure: SessionSaveError | null = null;
  // Facts stamped for the step that follows them (publishBeforeStep): neither written nor delivered yet. One array for
  // the kernel's life, emptied as a step takes them, holding objects from the start (see objectList).
  private readonly held: TroupeEvent[] = objectList();
  // Set while a flush of the held facts is due at the end of this turn of the event loop (see publishBeforeStep).
  private heldTimer: NodeJS.Immediate | null = null;
  private readonly flushDue = (): void => {
    this.heldTimer = null;
    this.flushHeld();
  };

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
    if (this.processing) {
      this.mailbox.push(input);
      return;
    }
    this.processing = true;
    try {
      // The input goes straight to the step: the mailbox holds only inputs sent while a step runs (its optimised push
      // was thrown away when a new session's empty mailbox came in: measured with --trace-deopt).
      this.process(input);
      for (let next = this.mailbox.shift(); next && !this.failure; next = this.mailbox.shift()) this.process(next);
    } finally {
      this.processing = false;
      this.mailbox.length = 0;
    }
  }

  /**
   * Publishes a runtime fact (usage, memory work, a call starting); stored unless it is a streaming delta.
   * Facts held for the next step (see publishBeforeStep) are written in the same line, and delivered first.
   */
  publish(e: EngineEvent): void {
    if (this.failure) return;
    const live = LIVE_ONLY.has(e.type);
    if (live) {
      // A delta never reaches a reader before a stored event stamped before it.
      if (this.held.length > 0) this.flushHeld();
      if (this.failure) return;
      this.bus.deliver(this.bus.stamp(e, false));
      return;
    }
    const stamped = this.bus.stamp(e);
    if (!this.journal) return this.bus.deliver(stamped);
    const line = this.held.length > 0 ? this.takeHeld() : [];
    line.push(stamped);
    try {
      this.journal.facts(line);
    } catch (error) {
      this.stopSaving(error);
      return;
    }
    for (const f of line) this.bus.deliver(f);
  }

  /**
   * Publishes a runtime fact a step follows at once (a call's usage, recorded as its answer comes in): held,
   * neither written nor delivered, and written in that step's journal line (one line per turn); when no step
   * or other fact comes in this turn of the event loop, it is written on a line of its own.
   */
  publishBeforeStep(e: EngineEvent): void {
    if (!this.journal?.joinsFacts) return this.publish(e);
    if (this.failure) return;
    this.held.push(this.bus.stamp(e));
    // A flush already due is left due when a step takes the facts (it then finds none): one timer a turn of the
    // event loop, not one made and cleared for every call (calls answered within one turn share it).
    if (this.heldTimer === null) this.heldTimer = setImmediate(this.flushDue);
  }

  /** Writes and delivers the facts held for a step that did not come (a reader is about to look, or the session stops). */
  flushHeld(): void {
    if (this.held.length === 0 || this.failure) return;
    const line = this.takeHeld();
    try {
      this.journal!.facts(line);
    } catch (error) {
      this.stopSaving(error);
      return;
    }
    for (const f of line) this.bus.deliver(f);
  }

  /** The held facts, then `more`, in a new array; none are held after. */
  private takeHeld(more: readonly TroupeEvent[] = []): TroupeEvent[] {
    const line = this.held.concat(more);
    this.held.length = 0;
    return line;
  }

  /** Resolves once nothing is running: no input queued and no model call in flight. */
  async settled(): Promise<void> {
    while (this.effects?.busy) await this.effects.idle();
    this.flushHeld();
  }

  private process(input: EngineInput): void {
    const { session, effects } = step(this.def, this.state, input);
    const events: TroupeEvent[] = [];
    const work: Effect[] = [];
    for (const fx of effects) {
      if (fx.type === 'emit') events.push(this.bus.stamp(fx.event));
      else work.push(fx);
    }
    // The calls this step starts are announced in its line: one line per turn, not a line per call going out.
    const port = this.journal ? this.effects : null;
    if (port?.announce) {
      for (const fx of work) {
        if (fx.type !== 'call_agent') continue;
        const started = port.announce(fx);
        if (started) events.push(this.bus.stamp(started));
      }
    }
    if (this.journal && (session !== this.state || events.length > 0)) {
      const facts = this.held.length;
      const line = facts > 0 ? this.takeHeld(events) : events;
      try {
        this.journal.step(input, line, session, facts);
      } catch (error) {
        this.stopSaving(error);
        return;
      }
      this.state = session;
      for (const e of line) this.bus.deliver(e);
    } else {
      this.state = session;
      for (const e of events) this.bus.deliver(e);
    }
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
    // Facts held for a step are dropped with it: nobody saw them, and nothing is written any more.
    this.takeHeld();
    this.effects?.abortAll();
    this.bus.deliver(this.bus.stamp(event('error', { message: this.failure.message, where: 'store' }), false));
  }
}

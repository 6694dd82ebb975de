import type { Effect } from '../engine/effects.js';
import type { EngineEvent, TroupeEvent } from '../engine/event-map.js';
import type { EngineInput } from '../engine/input-events.js';
import type { SessionState } from '../engine/session.js';

/**
 * Where a session's steps are kept. The kernel appends each step (its input, its events, the state after
 * it) before the step's events are delivered or its effects run, so nothing acts on an unsaved step.
 * Embedded: the journal file and its checkpoint document; Restate: the session object's state.
 */
export interface JournalPort {
  /** Where the session is kept, for messages (a file path, or a Restate object key); null when nowhere. */
  readonly location: string | null;
  /**
   * Appends one step; throws when it cannot be kept (the step's effects must not run). Its first `facts`
   * events are runtime facts published before the step (a call's usage, kept with the answer it led to);
   * the step's own events follow, then the calls it starts (agent_started).
   */
  step(input: EngineInput, events: TroupeEvent[], next: SessionState, facts?: number): void;
  /** Appends runtime facts (usage, memory work, retries, a call starting); throws when they cannot be kept. */
  facts(events: TroupeEvent[]): void;
  /**
   * True when a fact published just before a step may wait for that step's line (one line per turn): the
   * kernel holds it, neither written nor delivered, until the step or the end of this turn of the event loop.
   */
  readonly joinsFacts?: boolean;
  /** A good moment for a checkpoint (memory was compressed); the port decides whether one is due. */
  checkpointIfDue?(): void;
  /** Keeps the final state and lets go of the session; a failed write is thrown. */
  close(): Promise<void>;
}

/** What a journal port keeps beside the engine state at a checkpoint: the session's module state, read when needed. */
export interface JournalSources {
  /** Memory module state as plain data (null when memory is off). */
  memory: () => unknown;
  /** Usage totals as plain data. */
  usage: () => unknown;
  /** Who followed whom so far, as plain data (absent: not kept). */
  transitions?: () => unknown;
  /** The seq of the last stored event. */
  lastSeq: () => number;
  /**
   * Tells the session that a write the port does after a step returned (a checkpoint written off the event
   * loop) failed: the session stops saving at once, as when `step` or `facts` throws.
   */
  fault: (error: unknown) => void;
}

/**
 * Where a session's effects run: model calls (with their tool loops), sandbox evaluations and aborts.
 * Results come back to the kernel as inputs; work in progress can be awaited and aborted.
 */
export interface EffectPort {
  /** Starts one effect (events are delivered by the kernel before effects run). */
  execute(effect: Effect): void;
  /** True while an effect's work is in progress. */
  readonly busy: boolean;
  /** Resolves once no work is in progress. */
  idle(): Promise<void>;
  /** Aborts all work in progress (quit, shutdown, a failed save). */
  abortAll(): void;
  /**
   * The event saying a call this effect starts goes out (agent_started), built before the effect runs so the
   * step's journal line holds it; the effect, run next, does not publish it again. Null: nothing to announce.
   */
  announce?(effect: Effect): EngineEvent | null;
  /** Whether this effect's work is already in progress (resuming a session does not start it twice). */
  running?(effect: Effect): boolean;
}

/**
 * How the work inside an effect is made durable, one step at a time (a model call, a tool run, an
 * evaluation). `direct` runs each step as it is and reports what happens in it live (embedded: a crash
 * re-runs the whole turn from its journal); `journaled` keeps each finished step's result (Restate's
 * `ctx.run`), so after a crash a finished step is never run again and its callbacks are replayed from
 * its result instead of happening live.
 */
export interface StepRunner {
  readonly kind: 'direct' | 'journaled';
  /** Runs one step; `signal` aborts it (and a journaled runner aborts it when the backend cancels the work). */
  run<T>(name: string, work: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T>;
  /**
   * Declares one task of effect work (a model call with its tool loop, an evaluation, a summary call), known by
   * the signal that aborts it and whose steps pass it; returns its end. A journaled runner that lets tasks run
   * concurrently issues their steps in the order the tasks were declared, so a replay issues the same steps in
   * the same order, and it knows when every task waits on a step.
   */
  track?(signal: AbortSignal): () => void;
  /**
   * Resolves after `ms` unless `signal` aborts first (then never): a call's time limit. A journaled runner makes
   * it a durable timer whose firing is ordered with the steps, so a replay fires it at the same point; without
   * one, a timer of this process is used.
   */
  after?(ms: number, signal: AbortSignal): Promise<void>;
}

/** Runs each step as it is: the embedded backend (the journal of inputs makes a turn re-runnable instead). */
export const directSteps: StepRunner = {
  kind: 'direct',
  run: (_name, work, signal) => work(signal),
};

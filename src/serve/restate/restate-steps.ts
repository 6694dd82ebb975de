import * as restate from '@restatedev/restate-sdk';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { StepRunner } from '../../kernel/ports.js';
import { AbortedError } from '../../llm/errors.js';

/** What `ctx.run` keeps of one step: its value or its error, and when it finished (the session's clock after it). */
type Kept = { ok: true; value: unknown; at: number } | { ok: false; message: string; aborted: boolean; at: number };

interface Task {
  order: number;
  /** Unsettled step requests of this task (a task waits on at most one at a time). */
  waiting: number;
}

interface Request {
  id: number;
  name: string;
  task: Task | null;
  work: (signal: AbortSignal) => Promise<unknown>;
  /** A durable timer of this many ms instead of work. */
  sleepMs?: number;
  /** Aborts the step's work (the caller gave up, or the invocation was cancelled). */
  controller: AbortController;
  settle: (kept: Kept) => void;
  fail: (error: Error) => void;
  issued: restate.RestatePromise<{ id: number; kept: Kept }> | null;
  done: boolean;
  /** Stops listening to the caller's signal (a tool loop asks many steps on one signal). */
  unlisten: () => void;
}

/** How a drive ended: every task finished, or Restate cancelled the invocation (an input is waiting to be applied). */
export type DriveEnd = 'settled' | 'cancelled';

/**
 * The Restate step runner: each step is one `ctx.run` (kept in the invocation's journal: a finished step is
 * never run again, a replay answers from it). Steps are not issued as they are asked for but by `drive()`,
 * in an order a replay repeats: only once every task waits on a step (the session is quiet) are the new
 * ones issued, ordered by task; then one finished step at a time is handed back, in the order Restate's
 * `RestatePromise.race` journals. So a fan-out's branches run concurrently and replay identically.
 * The session's clock is the time the last step finished (kept with it), so replayed events are stamped alike.
 */
export class RestateSteps implements StepRunner {
  readonly kind = 'journaled' as const;
  private readonly tasks = new Map<AbortSignal, Task>();
  private readonly pending: Request[] = [];
  private declared = 0;
  private asked = 0;
  private closed = false;
  private wake: (() => void) | null = null;
  /** Epoch ms: the time of the input, then of the last step handed back. */
  now: number;

  constructor(
    private readonly ctx: restate.Context,
    startedAt: number,
    /** Told when a step's work really runs (not when a replay answers it from the journal). */
    private readonly onRun: (name: string) => void = () => undefined,
  ) {
    this.now = startedAt;
    // An attempt that ends (Restate lost the connection, the server restarts) leaves no one to keep a step's result:
    // its work stops, and the next attempt runs it again from the journal.
    ctx.request().attemptCompletedSignal.addEventListener(
      'abort',
      () => {
        for (const r of this.pending) r.controller.abort();
      },
      { once: true },
    );
  }

  /** The session's clock (deterministic: it only moves with kept steps). */
  readonly clock = (): number => this.now;

  track(signal: AbortSignal): () => void {
    const task: Task = { order: this.declared++, waiting: 0 };
    this.tasks.set(signal, task);
    return () => {
      if (this.tasks.get(signal) === task) this.tasks.delete(signal);
      this.nudge();
    };
  }

  /** A durable timer (`ctx.sleep`), raced with the steps; it is not a step of any task, so it never holds a quiet point. */
  after(ms: number, signal: AbortSignal): Promise<void> {
    // Stopped (the call ended first): it never fires, and never fails.
    return this.ask('timer', async () => undefined, signal, ms).then(
      () => undefined,
      () => new Promise<void>(() => undefined),
    );
  }

  run<T>(name: string, work: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
    return this.ask(name, work, signal);
  }

  private ask<T>(name: string, work: (signal: AbortSignal) => Promise<T>, signal: AbortSignal, sleepMs?: number): Promise<T> {
    // Once the invocation is over nothing more is asked of Restate; a straggler waits forever, unheard.
    if (this.closed) return new Promise<T>(() => undefined);
    if (signal.aborted) return Promise.reject(new AbortedError('call aborted'));
    return new Promise<T>((resolve, reject) => {
      const task = sleepMs === undefined ? (this.tasks.get(signal) ?? null) : null;
      const request: Request = {
        id: this.asked++,
        name,
        task,
        work: work as (signal: AbortSignal) => Promise<unknown>,
        ...(sleepMs !== undefined ? { sleepMs } : {}),
        controller: new AbortController(),
        issued: null,
        done: false,
        unlisten: () => signal.removeEventListener('abort', onAbort),
        settle: (kept) => {
          if (kept.ok) resolve(kept.value as T);
          else reject(kept.aborted ? new AbortedError(kept.message) : new Error(kept.message));
        },
        fail: reject,
      };
      const onAbort = () => this.drop(request, new AbortedError('call aborted'));
      if (task) task.waiting += 1;
      this.pending.push(request);
      signal.addEventListener('abort', onAbort, { once: true });
      this.nudge();
    });
  }

  /**
   * Runs the session's steps until no task is left (`settled`) or Restate cancels the invocation (`cancelled`:
   * the steps in flight are abandoned unapplied). `flush` is called at every quiet point, before the next
   * steps are issued, so what the session did so far is written before it waits.
   */
  async drive(flush: () => void | Promise<void>): Promise<DriveEnd> {
    for (;;) {
      await this.quiet();
      await flush();
      const open = this.pending.filter((r) => !r.done);
      if (open.length === 0) return 'settled';
      for (const r of open.filter((r) => !r.issued).sort(byTask)) r.issued = this.issue(r);
      let winner: { id: number; kept: Kept };
      try {
        winner = await restate.RestatePromise.race(open.map((r) => r.issued!));
      } catch (error) {
        if (error instanceof restate.CancelledError) return 'cancelled';
        throw error;
      }
      const request = open.find((r) => r.id === winner.id)!;
      if (request.done) continue;
      this.finish(request);
      this.now = Math.max(this.now, winner.kept.at);
      request.settle(winner.kept);
    }
  }

  /** Stops: steps in flight are aborted and never handed back; later requests wait forever (the invocation is over). */
  close(): void {
    this.closed = true;
    for (const r of this.pending.splice(0)) {
      r.done = true;
      r.unlisten();
      r.controller.abort();
    }
  }

  private issue(r: Request): restate.RestatePromise<{ id: number; kept: Kept }> {
    if (r.sleepMs !== undefined) {
      // Fires at a point of the journal; the session's clock then reads the timer's deadline.
      const at = this.now + r.sleepMs;
      return this.ctx.sleep(r.sleepMs, r.name).map(() => ({ id: r.id, kept: { ok: true, value: null, at } }));
    }
    const step = this.ctx.run<Kept>(r.name, async () => {
      try {
        if (r.controller.signal.aborted) throw new AbortedError('call aborted');
        this.onRun(r.name);
        const value = await r.work(r.controller.signal);
        return { ok: true, value: value === undefined ? null : value, at: Date.now() };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { ok: false, message, aborted: error instanceof AbortedError || r.controller.signal.aborted, at: Date.now() };
      }
    });
    return step.map((kept, failure) => ({ id: r.id, kept: kept ?? { ok: false, message: failure?.message ?? 'the step failed', aborted: false, at: this.now } }));
  }

  private drop(r: Request, error: Error): void {
    if (r.done) return;
    this.finish(r);
    r.controller.abort();
    r.fail(error);
  }

  private finish(r: Request): void {
    r.done = true;
    r.unlisten();
    if (r.task) r.task.waiting -= 1;
    const at = this.pending.indexOf(r);
    if (at >= 0) this.pending.splice(at, 1);
  }

  /**
   * Waits until every declared task waits on a step or has ended. A task doing other work (files of its
   * workspace, loading a module) is waited for, so its next step joins the same quiet point on every replay.
   */
  private async quiet(): Promise<void> {
    for (;;) {
      await nextTurn();
      let busy = false;
      for (const task of this.tasks.values()) if (task.waiting === 0) busy = true;
      if (!busy) return;
      // A busy task asks for a step or ends (either wakes this); the timer only guards against a missed wake.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  private nudge(): void {
    this.wake?.();
  }
}

function byTask(a: Request, b: Request): number {
  const ta = a.task?.order ?? Number.MAX_SAFE_INTEGER;
  const tb = b.task?.order ?? Number.MAX_SAFE_INTEGER;
  return ta - tb || a.id - b.id;
}

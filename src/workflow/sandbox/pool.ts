import { availableParallelism } from 'node:os';
import type { EvaluationResult } from '../../engine/evaluation.js';
import type { Job } from './run-job.js';
import { CANCELLED, SandboxWorker } from './worker-client.js';
import { workerEntry } from './worker-entry.js';

/** How many worker threads a pool has, and where they start (tests give their own, and a clock). */
export interface SandboxPoolOptions {
  size?: number;
  entry?: () => URL;
  /** Milliseconds, for how long a thread has run its job (default performance.now). */
  now?: () => number;
}

interface Waiting {
  job: Job;
  signal: AbortSignal | undefined;
  resolve: (result: EvaluationResult | string) => void;
  onAbort: () => void;
}

// Opening a session's context on a thread costs 6-10 ms of CPU (its built-ins frozen) and ~0.75 MiB kept until
// the session ends; a job costs about 0.1-1 ms. So a job waits for the thread holding its session's context
// while that thread is busy, unless the job running there has run HOP_AFTER_MS (a long script: then another
// thread opens a context for it). Measured: 20 sessions at once on two threads opened 2.00 contexts each when
// jobs went to any idle thread, and still 1.95 when they waited only 5 ms for their own.
const HOP_AFTER_MS = 50;
// How often held jobs look again whether their thread's job has run that long.
const HOP_CHECK_MS = 5;

/**
 * Warm sandbox worker threads shared by every workflow session of the process, so no session waits for
 * a thread and QuickJS of its own. A job goes to the thread holding its session's context (waiting for it
 * while busy, unless the job there runs long), else to an idle thread; sessions share threads but never a context. Jobs
 * wait in order when every thread is busy.
 */
export class SandboxPool {
  private readonly workers: SandboxWorker[];
  // Each busy thread, and when its job started.
  private readonly busy = new Map<SandboxWorker, number>();
  private readonly waiting: Waiting[] = [];
  private readonly now: () => number;
  private hopTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(options: SandboxPoolOptions = {}) {
    const size = Math.max(1, options.size ?? Math.min(4, availableParallelism()));
    this.workers = Array.from({ length: size }, () => new SandboxWorker(options.entry ?? workerEntry));
    this.now = options.now ?? (() => performance.now());
  }

  /** Starts every thread ahead of need (idempotent); they never keep the process alive while idle. */
  warm(): void {
    for (const worker of this.workers) worker.warm();
  }

  /** How many of its threads have been started (warm or busy). */
  get started(): number {
    return this.workers.filter((w) => w.started).length;
  }

  /** Runs a job on an idle thread; resolves with EvaluationResult JSON (or a result), never rejects. */
  run(job: Job, signal?: AbortSignal): Promise<EvaluationResult | string> {
    if (this.closed || signal?.aborted) return Promise.resolve(CANCELLED);
    return new Promise((resolve) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(waiting);
        if (at === -1) return;
        this.waiting.splice(at, 1);
        resolve(CANCELLED);
      };
      const waiting: Waiting = { job, signal, resolve, onAbort };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiting);
      this.dispatch();
    });
  }

  /** Drops a session's contexts (the session ended). */
  release(session: string): void {
    for (const worker of this.workers) worker.release(session);
  }

  /** Stops every thread; jobs waiting or running end as cancelled. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.hopTimer) clearTimeout(this.hopTimer);
    for (const waiting of this.waiting.splice(0)) waiting.resolve(CANCELLED);
    await Promise.all(this.workers.map((w) => w.close()));
  }

  // In order, each waiting job that has a thread now; a job waiting for its session's busy thread lets those
  // behind it go first, and a timer comes back for it once it may go to another thread.
  private dispatch(): void {
    let holding = false;
    for (let i = 0; i < this.waiting.length && this.busy.size < this.workers.length; ) {
      const next = this.waiting[i]!;
      const worker = this.pick(next);
      if (!worker) {
        holding = true;
        i += 1;
        continue;
      }
      this.waiting.splice(i, 1);
      next.signal?.removeEventListener('abort', next.onAbort);
      this.busy.set(worker, this.now());
      void worker.run(next.job, next.signal).then((result) => {
        this.busy.delete(worker);
        next.resolve(result);
        this.dispatch();
      });
    }
    if (holding && !this.hopTimer && this.busy.size < this.workers.length) {
      this.hopTimer = setTimeout(() => {
        this.hopTimer = null;
        this.dispatch();
      }, HOP_CHECK_MS);
      this.hopTimer.unref();
    }
  }

  // The thread holding the job's session when it is idle; none while that thread is busy (unless its job has
  // run HOP_AFTER_MS); else an idle thread, a started one first.
  private pick(waiting: Waiting): SandboxWorker | undefined {
    const holder = this.workers.find((w) => w.sessions.has(waiting.job.session));
    if (holder) {
      const since = this.busy.get(holder);
      if (since === undefined) return holder;
      if (this.now() - since < HOP_AFTER_MS) return undefined;
    }
    const idle = this.workers.filter((w) => !this.busy.has(w));
    return idle.find((w) => w.started) ?? idle[0];
  }
}

let shared: SandboxPool | null = null;

/** The process's pool, made on first use (the first workflow session) and never closed: its idle threads do not keep the process alive. */
export function sharedSandboxPool(): SandboxPool {
  shared ??= new SandboxPool();
  return shared;
}

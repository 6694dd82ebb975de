import { availableParallelism } from 'node:os';
import type { EvaluationResult } from '../../engine/evaluation.js';
import type { Job } from './run-job.js';
import { CANCELLED, SandboxWorker } from './worker-client.js';
import { workerEntry } from './worker-entry.js';

/** How many worker threads a pool has, and where they start (tests give their own). */
export interface SandboxPoolOptions {
  size?: number;
  entry?: () => URL;
}

interface Waiting {
  job: Job;
  signal: AbortSignal | undefined;
  resolve: (result: EvaluationResult | string) => void;
  onAbort: () => void;
}

/**
 * Warm sandbox worker threads shared by every workflow session of the process, so no session waits for
 * a thread and QuickJS of its own. A job goes to an idle thread, preferably the one holding its session's
 * context; sessions share threads but never a context. Jobs wait in order when every thread is busy.
 */
export class SandboxPool {
  private readonly workers: SandboxWorker[];
  private readonly busy = new Set<SandboxWorker>();
  private readonly waiting: Waiting[] = [];
  private closed = false;

  constructor(options: SandboxPoolOptions = {}) {
    const size = Math.max(1, options.size ?? Math.min(4, availableParallelism()));
    this.workers = Array.from({ length: size }, () => new SandboxWorker(options.entry ?? workerEntry));
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
    for (const waiting of this.waiting.splice(0)) waiting.resolve(CANCELLED);
    await Promise.all(this.workers.map((w) => w.close()));
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      const worker = this.pick(next.job.session);
      if (!worker) return;
      this.waiting.shift();
      next.signal?.removeEventListener('abort', next.onAbort);
      this.busy.add(worker);
      void worker.run(next.job, next.signal).then((result) => {
        this.busy.delete(worker);
        next.resolve(result);
        this.dispatch();
      });
    }
  }

  private pick(session: string): SandboxWorker | undefined {
    const idle = this.workers.filter((w) => !this.busy.has(w));
    return idle.find((w) => w.sessions.has(session)) ?? idle.find((w) => w.started) ?? idle[0];
  }
}

let shared: SandboxPool | null = null;

/** The process's pool, made on first use (the first workflow session) and never closed: its idle threads do not keep the process alive. */
export function sharedSandboxPool(): SandboxPool {
  shared ??= new SandboxPool();
  return shared;
}

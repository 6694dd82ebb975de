import { Worker } from 'node:worker_threads';
import type { EvaluationResult } from '../../engine/evaluation.js';
import { timeoutMessage } from './failure.js';
import type { Job } from './run-job.js';
import type { JobMessage, WorkerReply } from './worker.js';

/** What an evaluation gives when its signal aborts it. */
export const CANCELLED: EvaluationResult = { ok: false, error: 'cancelled' };
const STARTUP_MS = 30_000;

interface Running {
  id: number;
  finish: (result: EvaluationResult) => void;
}

/**
 * One warm worker thread running QuickJS, one job at a time. The worker is the hard time guard: a job
 * still running at its deadline plus grace (a slow built-in the interrupt handler never sees), or one that
 * is aborted, terminates the worker, and the next job starts a new one.
 */
export class SandboxWorker {
  private worker: Worker | null = null;
  private ready: Promise<Worker> | null = null;
  private running: Running | null = null;
  private seq = 0;
  private closed = false;

  constructor(private readonly entry: () => URL) {}

  /** Runs one job (the caller never runs two at once); resolves with its result, never rejects. */
  async run(job: Job, signal?: AbortSignal): Promise<EvaluationResult> {
    if (signal?.aborted || this.closed) return CANCELLED;
    let worker: Worker;
    try {
      worker = await this.start();
    } catch (error) {
      if (this.closed) return CANCELLED;
      return { ok: false, error: `the sandbox could not start: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (signal?.aborted || this.closed) return CANCELLED;
    return new Promise<EvaluationResult>((resolve) => {
      const id = ++this.seq;
      const onAbort = () => finish(CANCELLED, true);
      const timer = setTimeout(() => finish({ ok: false, error: timeoutMessage(job.limits) }, true), job.limits.timeoutMs + job.limits.graceMs);
      const finish = (result: EvaluationResult, kill: boolean) => {
        if (this.running?.id !== id) return;
        this.running = null;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (kill) this.kill(worker);
        resolve(result);
      };
      this.running = { id, finish: (result) => finish(result, false) };
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        worker.postMessage({ id, job } satisfies JobMessage);
      } catch (error) {
        // Data the worker cannot be sent (a function in the scope): never JSON, so never runnable.
        finish({ ok: false, error: `the evaluation is not JSON data: ${error instanceof Error ? error.message : String(error)}` }, false);
      }
    });
  }

  /** Stops the worker (a job in flight ends as cancelled). */
  async close(): Promise<void> {
    this.closed = true;
    this.running?.finish(CANCELLED);
    const worker = this.worker;
    this.worker = null;
    this.ready = null;
    if (worker) await worker.terminate();
  }

  private start(): Promise<Worker> {
    if (this.ready) return this.ready;
    const worker = new Worker(this.entry(), { resourceLimits: { maxOldGenerationSizeMb: 256 } });
    this.worker = worker;
    const ready = new Promise<Worker>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill(worker);
        reject(new Error(`the worker did not start within ${STARTUP_MS} ms`));
      }, STARTUP_MS);
      worker.on('message', (reply: WorkerReply) => {
        if (reply.type === 'ready') {
          clearTimeout(timer);
          resolve(worker);
        } else if (this.worker === worker && this.running?.id === reply.id) {
          const running = this.running;
          if (reply.damaged) this.kill(worker);
          running.finish(reply.result);
        }
      });
      const gone = (why: string) => {
        clearTimeout(timer);
        reject(new Error(why));
        if (this.worker !== worker) return;
        this.worker = null;
        this.ready = null;
        this.running?.finish({ ok: false, error: `the sandbox stopped: ${why}` });
      };
      worker.on('error', (error) => gone(error.message.split('\n')[0]!));
      worker.on('exit', (code) => gone(`the worker exited (code ${code})`));
      // An idle sandbox never keeps the process alive (a job in flight has its timer for that); after the
      // listeners, since listening for messages refs the worker's port again.
      worker.unref();
    });
    this.ready = ready;
    return ready;
  }

  private kill(worker: Worker): void {
    if (this.worker === worker) {
      this.worker = null;
      this.ready = null;
    }
    void worker.terminate();
  }
}

import { Worker } from 'node:worker_threads';
import type { EvaluationResult } from '../../engine/evaluation.js';
import { backstopMessage } from './failure.js';
import type { Job } from './run-job.js';
import type { WorkerMessage, WorkerReply } from './worker.js';

/** What an evaluation gives when its signal aborts it. */
export const CANCELLED: EvaluationResult = { ok: false, error: 'cancelled' };
const STARTUP_MS = 60_000;

interface Running {
  id: number;
  finish: (result: EvaluationResult | string) => void;
}

/**
 * One warm worker thread running QuickJS, one job at a time. Its wall-clock backstop only catches what the
 * step limit cannot see (a slow built-in): a job still running then, or one that is aborted, terminates the
 * thread, and the next job starts a new one. The clock starts when the job reaches a started worker, so a
 * cold start never counts against it.
 */
export class SandboxWorker {
  /** Sessions whose contexts this thread holds (they go with it when it is terminated). */
  readonly sessions = new Set<string>();
  private worker: Worker | null = null;
  private ready: Promise<Worker> | null = null;
  private running: Running | null = null;
  private seq = 0;
  private closed = false;

  constructor(private readonly entry: () => URL) {}

  /** Whether a job is running. */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Whether the thread is up (or starting). */
  get started(): boolean {
    return this.ready !== null;
  }

  /** Starts the thread ahead of need; a failure shows on the next job. */
  warm(): void {
    if (!this.closed) this.start().catch(() => undefined);
  }

  /** Runs one job (the caller never runs two at once); resolves with its result (EvaluationResult JSON, or a result), never rejects. */
  async run(job: Job, signal?: AbortSignal): Promise<EvaluationResult | string> {
    if (signal?.aborted || this.closed) return CANCELLED;
    let worker: Worker;
    try {
      worker = await this.start();
    } catch (error) {
      if (this.closed) return CANCELLED;
      return { ok: false, error: `the sandbox could not start: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (signal?.aborted || this.closed) return CANCELLED;
    return new Promise<EvaluationResult | string>((resolve) => {
      const id = ++this.seq;
      const onAbort = () => finish(CANCELLED, true);
      const timer = setTimeout(() => finish({ ok: false, error: backstopMessage(job.limits, 'the evaluation') }, true), job.limits.backstopMs);
      const finish = (result: EvaluationResult | string, kill: boolean) => {
        if (this.running?.id !== id) return;
        this.running = null;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (kill) this.kill(worker);
        resolve(result);
      };
      this.running = { id, finish: (result) => finish(result, false) };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sessions.add(job.session);
      worker.postMessage({ type: 'job', id, job } satisfies WorkerMessage);
    });
  }

  /** Drops a session's context (when the session ends). */
  release(session: string): void {
    if (!this.sessions.delete(session)) return;
    this.worker?.postMessage({ type: 'release', session } satisfies WorkerMessage);
  }

  /** Stops the thread (a job in flight ends as cancelled). */
  async close(): Promise<void> {
    this.closed = true;
    this.running?.finish(CANCELLED);
    const worker = this.worker;
    this.worker = null;
    this.ready = null;
    this.sessions.clear();
    if (worker) await worker.terminate();
  }

  private start(): Promise<Worker> {
    if (this.ready) return this.ready;
    const worker = new Worker(this.entry(), { resourceLimits: { maxOldGenerationSizeMb: 256 } });
    this.worker = worker;
    this.sessions.clear();
    const ready = new Promise<Worker>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill(worker);
        reject(new Error(`the worker did not start within ${STARTUP_MS / 1000} s`));
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
        this.sessions.clear();
        this.running?.finish({ ok: false, error: `the sandbox stopped: ${why}` });
      };
      worker.on('error', (error) => gone(error.message.split('\n')[0]!));
      worker.on('exit', (code) => gone(`the worker exited (code ${code})`));
      // An idle sandbox never keeps the process alive (a job in flight has its timer for that); after the
      // listeners, since listening for messages refs the worker's port again.
      worker.unref();
    });
    ready.catch(() => undefined);
    this.ready = ready;
    return ready;
  }

  private kill(worker: Worker): void {
    if (this.worker === worker) {
      this.worker = null;
      this.ready = null;
      this.sessions.clear();
    }
    void worker.terminate();
  }
}

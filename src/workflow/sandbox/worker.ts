import { parentPort } from 'node:worker_threads';
import { newQuickJSWASMModule } from 'quickjs-emscripten';
import type { EvaluationResult } from '../../engine/evaluation.js';
import { oneLine } from './failure.js';
import { closeGuestContext, limitsKey, openGuestContext, type GuestContext } from './guest-context.js';
import { runJob, type Job } from './run-job.js';

/** A job as the worker receives it. */
export interface JobMessage {
  id: number;
  job: Job;
}

/** What the worker sends back: that it is ready, or a job's result (damaged: replace this worker before the next job). */
export type WorkerReply = { type: 'ready' } | { type: 'result'; id: number; result: EvaluationResult; damaged: boolean };

// The worker thread: loads QuickJS once, then runs one job at a time as messages arrive. Freeing the used
// context and making the next one (loading the guest is most of the cost) happen after the answer is
// sent, so a job usually finds a fresh context waiting.
const port = parentPort;
const SPARES = 2;
if (port) {
  const module = await newQuickJSWASMModule();
  // Two, so that the pairs the engine asks for back to back (after-code, then transitions) both find one.
  const spares: GuestContext[] = [];
  const take = (limits: Job['limits']): GuestContext => {
    const key = limitsKey(limits);
    for (const stale of spares.filter((s) => s.key !== key)) closeGuestContext(stale);
    const ready = spares.filter((s) => s.key === key);
    spares.length = 0;
    spares.push(...ready.slice(1));
    return ready[0] ?? openGuestContext(module, limits);
  };
  port.on('message', (message: JobMessage) => {
    let used: GuestContext | null = null;
    let reply: WorkerReply;
    try {
      const outcome = runJob(message.job, () => (used = take(message.job.limits)));
      reply = { type: 'result', id: message.id, result: outcome.result, damaged: outcome.damaged };
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      reply = { type: 'result', id: message.id, result: { ok: false, error: oneLine(`the sandbox failed: ${text}`) }, damaged: true };
    }
    port.postMessage(reply);
    if (reply.damaged) return;
    setImmediate(() => {
      // QuickJS that cannot free a context is not to be trusted with the next one: this worker ends, and
      // the next job starts a new one.
      if (used && !closeGuestContext(used)) process.exit(1);
      later(message.job.limits);
    });
  });
  // One spare at a time; while one is left, a moment later, so a job that follows at once (the engine
  // asks for after-code and transitions back to back) is not kept waiting behind the making of another.
  const later = (limits: Job['limits']): void => {
    if (spares.length === 0) setImmediate(() => refill(limits));
    else setTimeout(() => refill(limits), 2);
  };
  const refill = (limits: Job['limits']): void => {
    if (spares.length >= SPARES) return;
    try {
      spares.push(openGuestContext(module, limits));
      later(limits);
    } catch {
      // The next job makes its own context (and reports why it cannot).
    }
  };
  port.postMessage({ type: 'ready' } satisfies WorkerReply);
}

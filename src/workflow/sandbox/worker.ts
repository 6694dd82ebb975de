import { parentPort } from 'node:worker_threads';
import { newQuickJSWASMModule } from 'quickjs-emscripten';
import { oneLine } from './failure.js';
import { closeGuestContext, limitsKey, openGuestContext, type GuestContext } from './guest-context.js';
import { DEFAULT_LIMITS } from './program.js';
import { runJob, type Job } from './run-job.js';

/** What the worker is sent: a job to run, or a session whose context to drop. */
export type WorkerMessage = { type: 'job'; id: number; job: Job } | { type: 'release'; session: string };

/** What the worker sends back: that it is ready, or a job's result as EvaluationResult JSON (damaged: replace this worker). */
export type WorkerReply = { type: 'ready' } | { type: 'result'; id: number; result: string; damaged: boolean };

// Contexts kept per worker (least recently used first out): each is one session's, about 1 MiB of wasm heap.
const MAX_CONTEXTS = 48;

// The worker thread: loads QuickJS once, then runs one job at a time as messages arrive, each in the context
// of its session (made on the session's first job, or taken from the spare made ahead of need). A context
// that failed, could not be swept or has promise jobs left is closed, never used again.
const port = parentPort;
if (port) {
  const module = await newQuickJSWASMModule();
  const contexts = new Map<string, GuestContext>();
  let spare: GuestContext | null = null;

  const take = (job: Job): GuestContext => {
    const key = limitsKey(job.limits);
    const own = contexts.get(job.session);
    contexts.delete(job.session);
    if (own && own.key === key) return own;
    if (own) closeGuestContext(own);
    const ready = spare?.key === key ? spare : null;
    if (ready) spare = null;
    return ready ?? openGuestContext(module, job.limits);
  };

  const close = (guest: GuestContext): void => {
    // QuickJS that cannot free a context is not to be trusted with the next one: this worker ends, and
    // the next job starts a new one.
    if (!closeGuestContext(guest)) process.exit(1);
  };

  port.on('message', (message: WorkerMessage) => {
    if (message.type === 'release') {
      const guest = contexts.get(message.session);
      contexts.delete(message.session);
      if (guest) close(guest);
      return;
    }
    let guest: GuestContext | null = null;
    let reply: WorkerReply;
    let keep = false;
    try {
      guest = take(message.job);
      const outcome = runJob(message.job, guest);
      keep = outcome.keep && !guest.runtime.hasPendingJob();
      reply = { type: 'result', id: message.id, result: outcome.result, damaged: outcome.damaged };
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      reply = { type: 'result', id: message.id, result: JSON.stringify({ ok: false, error: oneLine(`the sandbox failed: ${text}`) }), damaged: true };
    }
    port.postMessage(reply);
    if (reply.damaged) return;
    if (guest && keep) contexts.set(message.job.session, guest);
    const used = guest;
    // Housekeeping after the answer has gone, and only when there is some: most jobs keep their context and leave a spare.
    if (keep && spare && contexts.size <= MAX_CONTEXTS) return;
    setImmediate(() => {
      if (used && !keep) close(used);
      for (const [session, old] of contexts) {
        if (contexts.size <= MAX_CONTEXTS) break;
        contexts.delete(session);
        close(old);
      }
      if (!spare) {
        try {
          spare = openGuestContext(module, message.job.limits);
        } catch {
          // The next job makes its own context (and reports why it cannot).
        }
      }
    });
  });
  port.postMessage({ type: 'ready' } satisfies WorkerReply);
  // The first session's context is made while the worker waits for its first job.
  setImmediate(() => {
    try {
      spare ??= openGuestContext(module, DEFAULT_LIMITS);
    } catch {
      // Made on the first job instead.
    }
  });
}

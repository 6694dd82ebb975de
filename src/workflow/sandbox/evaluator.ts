import type { Evaluator } from '../../kernel/effect-runner.js';
import { EvaluationResultSchema, type Evaluation, type EvaluationResult } from '../../engine/evaluation.js';
import { oneLine } from './failure.js';
import { DEFAULT_LIMITS, SandboxLimitsSchema, type SandboxLimits } from './program.js';
import { CANCELLED, SandboxWorker } from './worker-client.js';
import { workerEntry } from './worker-entry.js';

/** How the sandbox finds script.js and what it allows (any limit left out takes its default). */
export interface SandboxOptions extends Partial<SandboxLimits> {
  /** A workflow's script.js source, by workflow name (null when it has none); read only for handlers. */
  scriptFor?: (workflowName: string) => string | null;
}

/** An Evaluator on QuickJS in a worker thread, to be closed when the session ends. */
export interface SandboxEvaluator extends Evaluator {
  /** Stops the worker; evaluations waiting or running end as cancelled, later ones fail. */
  close(): Promise<void>;
}

interface Waiting {
  evaluation: Evaluation;
  signal: AbortSignal | undefined;
  resolve: (result: EvaluationResult) => void;
  /** Takes it out of the queue when its signal aborts first. */
  onAbort: () => void;
}

/**
 * Runs workflow code (conditions, inputs, scripts, templates, script.js handlers) in QuickJS: a fresh
 * context per evaluation, bounded in time, memory and stack, in a warm worker thread. Evaluations asked
 * for together (parallel branches) wait their turn; none ever throws (a nonsensical limit throws here).
 */
export function createSandboxEvaluator(options: SandboxOptions = {}): SandboxEvaluator {
  const { scriptFor, ...given } = options;
  const limits = limitsOf(given);
  const worker = new SandboxWorker(workerEntry);
  const queue: Waiting[] = [];
  let busy = false;
  let closed = false;

  const script = (workflow: string): string | null | EvaluationResult => {
    try {
      return scriptFor ? scriptFor(workflow) : null;
    } catch (error) {
      return { ok: false, error: oneLine(`could not read script.js of workflow ${workflow}: ${error instanceof Error ? error.message : String(error)}`) };
    }
  };

  const runOne = async ({ evaluation, signal }: Waiting): Promise<EvaluationResult> => {
    if (signal?.aborted) return CANCELLED;
    const source = usesHandler(evaluation) ? script(evaluation.workflow) : null;
    if (source !== null && typeof source === 'object') return source;
    const result = await worker.run({ evaluation, script: source, limits }, signal);
    const checked = EvaluationResultSchema.safeParse(result);
    return checked.success ? checked.data : { ok: false, error: 'the sandbox gave a malformed result' };
  };

  const pump = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    for (let next = queue.shift(); next; next = queue.shift()) {
      // A signal that outlives its evaluation (one per session) must not collect listeners.
      next.signal?.removeEventListener('abort', next.onAbort);
      next.resolve(await runOne(next).catch((error: unknown) => ({ ok: false, error: oneLine(`the sandbox failed: ${error instanceof Error ? error.message : String(error)}`) })));
    }
    busy = false;
  };

  return {
    evaluate(evaluation, signal) {
      if (closed) return Promise.resolve({ ok: false, error: 'the sandbox is closed' });
      return new Promise<EvaluationResult>((resolve) => {
        const onAbort = () => {
          const at = queue.indexOf(waiting);
          if (at !== -1) queue.splice(at, 1), resolve(CANCELLED);
        };
        const waiting: Waiting = { evaluation, signal, resolve, onAbort };
        // Cancelled while waiting its turn: it leaves the queue at once.
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiting);
        void pump();
      });
    },
    async close() {
      closed = true;
      for (const waiting of queue.splice(0)) waiting.resolve(CANCELLED);
      await worker.close();
    },
  };
}

/** The limits asked for over the defaults; a limit that makes no sense is a programming error, thrown at once. */
function limitsOf(given: Partial<SandboxLimits>): SandboxLimits {
  const parsed = SandboxLimitsSchema.safeParse({ ...DEFAULT_LIMITS, ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new TypeError(`sandbox option ${issue.path.join('.')}: ${issue.message}`);
}

/** Whether any code of the evaluation names a script.js handler. */
function usesHandler(evaluation: Evaluation): boolean {
  const codes = [evaluation.code, ...Object.values(evaluation.fields ?? {}), ...(evaluation.transitions ?? []).flatMap((t) => [t.condition, t.before])];
  return codes.some((code) => code?.kind === 'handler');
}

import { randomUUID } from 'node:crypto';
import type { Evaluator } from '../../kernel/effect-runner.js';
import type { ChainStep, Evaluation, EvaluationResult } from '../../engine/evaluation.js';
import { oneLine } from './failure.js';
import { splitScope } from './kept-fields.js';
import { sharedInlineSandbox, type InlineSandbox } from './inline-sandbox.js';
import { SandboxPool } from './pool.js';
import { prepareEvaluation } from './prepare.js';
import { DEFAULT_LIMITS, SandboxLimitsSchema, type SandboxLimits } from './program.js';
import { evaluationResultOf } from './result-shape.js';
import { decideInHost } from './host-decision.js';
import { pruneScope } from './scope-reads.js';
import { hostTierCounts, runInTier } from './tier/run.js';
import { wireContexts, type WireList } from './wire-contexts.js';
import { CANCELLED } from './worker-client.js';

/** How the sandbox finds script.js, where it runs and what it allows (any limit left out takes its default). */
export interface SandboxOptions extends Partial<SandboxLimits> {
  /** A workflow's script.js source, by workflow name (null when it has none); read only for handlers. */
  scriptFor?: (workflowName: string) => string | null;
  /** The worker threads to run on (a session's: the process's shared pool); without one, a pool of one thread of its own. */
  pool?: SandboxPool;
  /**
   * Small jobs on the calling thread first (true: the process's InlineSandbox), for embedders who trust their
   * scripts; default false: every job on the pool, so no workflow code can hold the event loop (see README).
   */
  inline?: InlineSandbox | boolean;
  /**
   * Code the host tier interprets (see tier/run.ts) runs in the host, on copies of the scope, with the sandbox's
   * result; everything else in QuickJS. Sessions turn it on; default false: every evaluation in QuickJS.
   */
  hostTier?: boolean;
}

/** An Evaluator on QuickJS in worker threads, to be closed when the session ends. */
export interface SandboxEvaluator extends Evaluator {
  /** Drops the session's contexts (and stops its own pool); evaluations waiting or running end as cancelled, later ones fail. */
  close(): Promise<void>;
}

interface Waiting {
  evaluation: Evaluation;
  /** The host tier was tried already (and left it to the sandbox). */
  tried: boolean;
  signal: AbortSignal | undefined;
  resolve: (result: EvaluationResult) => void;
  /** Takes it out of the queue when its signal aborts first. */
  onAbort: () => void;
}

/**
 * Runs one session's workflow code (conditions, inputs, scripts, templates, script.js handlers) in QuickJS,
 * in a context of the session's own, bounded in steps, memory and stack: a small job on the calling thread
 * (see InlineSandbox), anything more on a pool of warm worker threads, with the same answer either way.
 * What needs no code is decided here without the sandbox. Evaluations asked for together (parallel
 * branches) wait their turn; none ever throws (a nonsensical limit throws here).
 */
export function createSandboxEvaluator(options: SandboxOptions = {}): SandboxEvaluator {
  const { scriptFor, pool: shared, inline: inlineOption, hostTier = false, ...given } = options;
  const inline = inlineOption === true ? sharedInlineSandbox() : inlineOption || null;
  inline?.warm();
  const limits = limitsOf(given);
  const own = shared ? null : new SandboxPool({ size: 1 });
  const pool = shared ?? own!;
  pool.warm();
  const session = randomUUID();
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

  // The host tier's answer (null: the sandbox's to give), once per evaluation.
  const inTier = (waiting: Pick<Waiting, 'evaluation' | 'tried'>, source: string | null): EvaluationResult | null => {
    if (waiting.tried) return null;
    waiting.tried = true;
    const decided = runInTier(waiting.evaluation, source, limits);
    if (!decided) hostTierCounts.sandbox += 1;
    return decided;
  };

  const runOne = async (waiting: Waiting): Promise<EvaluationResult> => {
    const { evaluation, signal } = waiting;
    if (signal?.aborted) return CANCELLED;
    const source = usesHandler(evaluation) ? script(evaluation.workflow) : null;
    if (source !== null && typeof source === 'object') return source;
    if (hostTier) {
      const decided = inTier(waiting, source);
      if (decided) return decided;
    } else if (!evaluation.next && !evaluation.targets) {
      // Without the tier, what needs no code (an evaluation asked for before the engine decided such things itself: a resumed session) needs no worker either.
      const decided = decideInHost(evaluation, evaluation.scope, limits.maxLogLines);
      if (decided) return decided;
    }
    const prepared = prepareEvaluation(evaluation, source, limits);
    if (!prepared.ok) return { ok: false, error: oneLine(prepared.error) };
    let scope: string;
    let kept: Record<string, string>;
    let lists: Record<string, WireList> | null;
    try {
      const wired = wireContexts(pruneScope(evaluation.scope, prepared.job.reads));
      ({ scope, kept } = splitScope(wired.scope, onlyData));
      lists = wired.lists;
    } catch (error) {
      return { ok: false, error: oneLine(`the scope is not JSON: ${String(error)}`) };
    }
    const { parts, script: withScript } = prepared.job;
    const job = { session, parts, scope, kept, lists, script: withScript, limits };
    const answer = inline?.run(job) ?? (await pool.run(job, signal));
    return evaluationResultOf(typeof answer === 'string' ? JSON.parse(answer) : answer) ?? { ok: false, error: 'the sandbox gave a malformed result' };
  };

  const pump = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    for (let next = queue.shift(); next; next = queue.shift()) {
      // A signal that outlives its evaluation (one per session) must not collect listeners.
      next.signal?.removeEventListener('abort', next.onAbort);
      const result = await runOne(next).catch((error: unknown): EvaluationResult => ({ ok: false, error: oneLine(`the sandbox failed: ${error instanceof Error ? error.message : String(error)}`) }));
      // Closed while it ran on a shared thread (which goes on serving other sessions): it ends as cancelled.
      next.resolve(closed ? CANCELLED : result);
    }
    busy = false;
  };

  return {
    evaluate(evaluation, signal) {
      if (closed) return Promise.resolve({ ok: false, error: 'the sandbox is closed' });
      const tried = { evaluation, tried: false };
      // Nothing waits or runs: the host tier answers at once, without a turn in the queue (its abort listener, its pump).
      if (hostTier && !busy && queue.length === 0 && !signal?.aborted) {
        const source = usesHandler(evaluation) ? script(evaluation.workflow) : null;
        if (source !== null && typeof source === 'object') return Promise.resolve(source);
        const decided = inTier(tried, source);
        if (decided) return Promise.resolve(decided);
      }
      return new Promise<EvaluationResult>((resolve) => {
        const onAbort = () => {
          const at = queue.indexOf(waiting);
          if (at === -1) return;
          queue.splice(at, 1);
          resolve(CANCELLED);
        };
        const waiting: Waiting = { evaluation, tried: tried.tried, signal, resolve, onAbort };
        // Cancelled while waiting its turn: it leaves the queue at once.
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiting);
        void pump();
      });
    },
    async close() {
      closed = true;
      for (const waiting of queue.splice(0)) waiting.resolve(CANCELLED);
      pool.release(session);
      inline?.release(session);
      await own?.close();
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

// JSON.stringify would drop a function silently; the engine's scope is always data, so one is a caller's mistake.
function onlyData(_key: string, value: unknown): unknown {
  if (typeof value === 'function' || typeof value === 'symbol') throw new TypeError(`a ${typeof value} is not data`);
  return value;
}

/** Whether any code of the evaluation (or of what is chained after it) names a script.js handler. */
function usesHandler(step: ChainStep): boolean {
  // Loops, not arrays of every piece: this runs on every evaluation.
  if (step.code?.kind === 'handler') return true;
  if (step.fields) for (const code of Object.values(step.fields)) if (code.kind === 'handler') return true;
  if (step.transitions) for (const t of step.transitions) if (t.condition?.kind === 'handler' || t.before?.kind === 'handler') return true;
  if (step.next && usesHandler(step.next)) return true;
  if (step.targets) for (const next of Object.values(step.targets)) if (usesHandler(next)) return true;
  return false;
}

import { performance } from 'node:perf_hooks';
import { newQuickJSWASMModule, type QuickJSWASMModule } from 'quickjs-emscripten';
import { closeGuestContext, limitsKey, openGuestContext, type GuestContext } from './guest-context.js';
import { STEPS_PER_INTERRUPT } from './program.js';
import { runJob, type Job } from './run-job.js';

/** How much guest work the calling thread takes on before it leaves a job to the pool. */
export interface InlineSandboxOptions {
  /** Interpreter steps a whole job may take here (a multiple of STEPS_PER_INTERRUPT; the pool's limit is per piece). */
  budgetSteps?: number;
  /** Memory a context here may use: far below the pool's, so a built-in the step count cannot see only works on small data. */
  memoryBytes?: number;
  /** Contexts kept here (one per session, each its own runtime and heap). */
  maxContexts?: number;
  /** A job still running after this long (checked when the interrupt handler runs) is left to the pool. */
  wallMs?: number;
  /** Jobs of a session left to the pool (a failure, a late job; an overrun counts for all) after which it stays there. */
  maxFallbacks?: number;
}

/** Where a job ran, counted (for tests and the bench). */
export interface InlineCounts {
  inline: number;
  pool: number;
  overran: number;
  /** The most interrupt-handler calls one job made here (each is STEPS_PER_INTERRUPT steps of guest work). */
  mostInterrupts: number;
  /** Jobs run here (whatever became of them), and the CPU time (µs, the process's) the calls that ran them took (counted only while `measure` is set). */
  ran: number;
  heldMicros: number;
}

// A context unused for this many jobs of other sessions may be given to a new session.
const IDLE_JOBS = 1000;

/**
 * Runs small sandbox jobs on the calling thread, each in a hardened QuickJS context of its session's own
 * (its own runtime, so sessions never share a heap; at most maxContexts of them), sparing the thread
 * crossing of the pool. Only a job that ran to the end within a small step budget, memory and deadline,
 * succeeded and left its context clean gives its answer here; anything else (a failure, an overrun, a
 * session without a context yet) gives null, and the caller runs the same job on the pool, whose answer
 * is the same for a job that succeeds here, since an evaluation depends only on its job (nothing carries
 * over in a context). A context that did not finish cleanly is thrown away.
 */
export class InlineSandbox {
  readonly counts: InlineCounts = { inline: 0, pool: 0, overran: 0, mostInterrupts: 0, ran: 0, heldMicros: 0 };
  /** Whether to count the CPU time jobs take here (counts.heldMicros): two getrusage calls a job, for benches. */
  measure = false;
  private readonly budget: number;
  private readonly memoryBytes: number;
  private readonly maxContexts: number;
  private readonly wallMs: number;
  private readonly maxFallbacks: number;
  private module: QuickJSWASMModule | null = null;
  private loading: Promise<void> | null = null;
  private readonly contexts = new Map<string, { guest: GuestContext; used: number }>();
  private readonly fallbacks = new Map<string, number>();
  private readonly building = new Set<string>();
  private jobs = 0;

  constructor(options: InlineSandboxOptions = {}) {
    this.budget = Math.max(1, Math.ceil((options.budgetSteps ?? 200_000) / STEPS_PER_INTERRUPT));
    this.memoryBytes = options.memoryBytes ?? 1024 * 1024;
    this.maxContexts = options.maxContexts ?? 16;
    this.wallMs = options.wallMs ?? 20;
    // A session whose jobs keep needing the pool goes there for good.
    this.maxFallbacks = options.maxFallbacks ?? 3;
  }

  /** Loads QuickJS ahead of need (idempotent); until it is loaded every job goes to the pool. */
  warm(): void {
    this.loading ??= newQuickJSWASMModule().then(
      (module) => {
        this.module = module;
      },
      () => undefined,
    );
  }

  /** Resolves when QuickJS is loaded (or could not be). */
  async ready(): Promise<void> {
    this.warm();
    await this.loading;
  }

  /** The job's answer (EvaluationResult JSON) when it ran here to a clean success; null: run it on the pool. */
  run(job: Job): string | null {
    this.jobs += 1;
    const memoryBytes = Math.min(this.memoryBytes, job.limits.memoryBytes);
    const key = limitsKey({ memoryBytes, stackBytes: job.limits.stackBytes });
    const held = this.contexts.get(job.session);
    if (!held || held.guest.key !== key) {
      if ((this.fallbacks.get(job.session) ?? 0) < this.maxFallbacks) this.buildAhead(job.session, memoryBytes, job.limits.stackBytes);
      return this.toPool();
    }
    const { guest } = held;
    this.contexts.delete(job.session);
    const { steps } = guest;
    steps.jobCalls = 0;
    steps.jobMax = this.budget;
    steps.overran = false;
    steps.stopAt = performance.now() + this.wallMs;
    const cpu = this.measure ? process.cpuUsage() : null;
    const outcome = runJob(job, guest);
    this.counts.ran += 1;
    if (cpu) {
      const used = process.cpuUsage(cpu);
      this.counts.heldMicros += used.user + used.system;
    }
    const late = steps.overran && steps.jobCalls <= this.budget;
    steps.jobMax = Number.POSITIVE_INFINITY;
    steps.stopAt = Number.POSITIVE_INFINITY;
    this.counts.mostInterrupts = Math.max(this.counts.mostInterrupts, steps.jobCalls);
    if (outcome.damaged) {
      // The host side of QuickJS failed here: no more jobs run on this thread.
      this.module = null;
      this.contexts.set(job.session, { guest, used: this.jobs });
      this.closeAll();
      return this.toPool();
    }
    if (!steps.overran && outcome.keep && !guest.runtime.hasPendingJob()) {
      this.contexts.set(job.session, { guest, used: this.jobs });
      this.counts.inline += 1;
      return outcome.result;
    }
    if (steps.overran) this.counts.overran += 1;
    // Code that outran the budget will again; a job that was only late (a busy machine) may be tried here again.
    this.fallbacks.set(job.session, (this.fallbacks.get(job.session) ?? 0) + (steps.overran && !late ? this.maxFallbacks : 1));
    this.close(guest);
    if ((this.fallbacks.get(job.session) ?? 0) < this.maxFallbacks) this.buildAhead(job.session, memoryBytes, job.limits.stackBytes);
    return this.toPool();
  }

  /** Drops a session's context (the session ended). */
  release(session: string): void {
    const held = this.contexts.get(session);
    this.contexts.delete(session);
    this.fallbacks.delete(session);
    if (held) this.close(held.guest);
  }

  private toPool(): null {
    this.counts.pool += 1;
    return null;
  }

  // Made after the job that found none (it goes to the pool), so no answer waits for it.
  private buildAhead(session: string, memoryBytes: number, stackBytes: number): void {
    if (!this.module || this.building.has(session)) return;
    this.building.add(session);
    setImmediate(() => {
      this.building.delete(session);
      const module = this.module;
      if (!module || this.contexts.has(session) || !this.makeRoom()) return;
      try {
        this.contexts.set(session, { guest: openGuestContext(module, { memoryBytes, stackBytes }), used: this.jobs });
      } catch {
        // The pool serves the session.
      }
    }).unref();
  }

  // A free place, or the least recently used context's if it has been idle long enough.
  private makeRoom(): boolean {
    if (this.contexts.size < this.maxContexts) return true;
    const [session, oldest] = this.contexts.entries().next().value!;
    if (this.jobs - oldest.used < IDLE_JOBS) return false;
    this.contexts.delete(session);
    this.close(oldest.guest);
    return true;
  }

  // QuickJS that cannot free a context is not trusted with the next: no more jobs run here.
  private close(guest: GuestContext): void {
    if (closeGuestContext(guest)) return;
    this.module = null;
    this.closeAll();
  }

  private closeAll(): void {
    for (const held of this.contexts.values()) closeGuestContext(held.guest);
    this.contexts.clear();
  }
}

let shared: InlineSandbox | null = null;

/** The process's calling-thread sandbox, made on first use. */
export function sharedInlineSandbox(): InlineSandbox {
  shared ??= new InlineSandbox();
  return shared;
}

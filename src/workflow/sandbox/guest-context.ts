import { performance } from 'node:perf_hooks';
import { DefaultIntrinsics, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, type QuickJSWASMModule } from 'quickjs-emscripten';
import { GUEST_MODULES } from './guest-modules.js';
import { GUEST_CORE } from './guest.js';
import type { HeldLists } from './kept-messages.js';
import type { SandboxLimits } from './program.js';

// Workflow code has no use for typed arrays or proxies; fewer built-ins also make a context cheaper.
const INTRINSICS = { ...DefaultIntrinsics, TypedArrays: false, Proxy: false };

/** A hardened QuickJS runtime and context with the guest loaded: one session's, for many evaluations. */
export interface GuestContext {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  /** The guest's run function (its `where` property says which piece ran last). */
  run: QuickJSHandle;
  /** run.where: which part and piece runs, and the answers of the parts that ended. */
  where: QuickJSHandle;
  /** The memory and stack limits it was made with (a job with other limits needs another). */
  key: string;
  /** Interrupt-handler calls so far in the piece running now, and how many it may make (the step limit). */
  steps: GuestSteps;
  /** Hashes of the script.js sources the guest has compiled (it is sent a source only once). */
  scripts: Set<string>;
  /** Ids of the jobs the guest has parsed (it is sent a job's JSON only once). */
  jobs: Set<number>;
  /** Ids of the jobs whose code reads contexts' messages (they are sent them at once, not after asking). */
  readers: Set<number>;
  /** The scope fields the guest keeps between jobs, as the JSON it was sent (null: none, or not known after a failed call). */
  held: Map<string, string> | null;
  /** Each context's messages as the guest holds them (null: none, or not known after a failed call). */
  lists: HeldLists | null;
}

/**
 * What the interrupt handler counts. `calls`/`max`: the part of the job running now (the step limit; `part`
 * is the one it counted last: when the guest has moved on to the next, the count starts over). `jobCalls`/`jobMax`
 * and `stopAt`: a whole job on the calling thread (its small budget, and a deadline on performance.now()
 * after which the job is left to the pool); Infinity in a worker. `overran`: one of those stopped the job.
 */
export interface GuestSteps {
  calls: number;
  max: number;
  part: number;
  jobCalls: number;
  jobMax: number;
  stopAt: number;
  overran: boolean;
}

/** The limits a context is made with, as a key. */
export function limitsKey(limits: Pick<SandboxLimits, 'memoryBytes' | 'stackBytes'>): string {
  return `${limits.memoryBytes}/${limits.stackBytes}`;
}

/**
 * Makes a runtime (memory and stack limits set, its interrupt handler counting steps) and a context, loads
 * the guest into it and hardens it. About 10 ms: the worker makes one ahead of need for the next session.
 */
export function openGuestContext(module: QuickJSWASMModule, limits: Pick<SandboxLimits, 'memoryBytes' | 'stackBytes'>): GuestContext {
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  // QuickJS calls this every STEPS_PER_INTERRUPT interpreter ticks; between jobs nothing runs, so no limit.
  const steps: GuestSteps = { calls: 0, max: Number.POSITIVE_INFINITY, part: 0, jobCalls: 0, jobMax: Number.POSITIVE_INFINITY, stopAt: Number.POSITIVE_INFINITY, overran: false };
  // The guest's own record of which part of the job runs (read without running code: a data property of an object only the guest core holds).
  let where: QuickJSHandle | null = null;
  const context = runtime.newContext({ intrinsics: INTRINSICS });
  runtime.setInterruptHandler(() => {
    if (++steps.jobCalls > steps.jobMax || (steps.stopAt !== Number.POSITIVE_INFINITY && performance.now() > steps.stopAt)) steps.overran = true;
    if (steps.max !== Number.POSITIVE_INFINITY && where !== null) {
      try {
        const part = context.getProp(where, 'part');
        const at = context.getNumber(part);
        part.dispose();
        if (at !== steps.part) {
          steps.part = at;
          steps.calls = 0;
        }
      } catch {
        return true;
      }
    }
    return steps.overran || ++steps.calls > steps.max;
  });
  try {
    const source = `${GUEST_CORE}(${JSON.stringify(GUEST_MODULES)})`;
    const run = context.unwrapResult(context.evalCode(source, 'troupe-guest.js', { type: 'global', strict: true }));
    where = context.getProp(run, 'where');
    return { runtime, context, run, where, key: limitsKey(limits), steps, scripts: new Set(), jobs: new Set(), readers: new Set(), held: null, lists: null };
  } catch (error) {
    where?.dispose();
    context.dispose();
    runtime.dispose();
    throw error;
  }
}

/** Frees a context and its runtime; false when QuickJS failed to (the module is then not to be trusted). */
export function closeGuestContext(guest: GuestContext): boolean {
  try {
    guest.where.dispose();
    guest.run.dispose();
    guest.context.dispose();
    guest.runtime.dispose();
    return true;
  } catch {
    return false;
  }
}

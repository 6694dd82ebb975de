import { DefaultIntrinsics, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, type QuickJSWASMModule } from 'quickjs-emscripten';
import { GUEST_MODULES } from './guest-modules.js';
import { GUEST_CORE } from './guest.js';
import type { SandboxLimits } from './program.js';

// Workflow code has no use for typed arrays or proxies; fewer built-ins also make a context cheaper.
const INTRINSICS = { ...DefaultIntrinsics, TypedArrays: false, Proxy: false };

/** A fresh QuickJS runtime and context with the guest loaded, for exactly one evaluation. */
export interface GuestContext {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  /** The guest's run function (its `where` property says which piece ran last). */
  run: QuickJSHandle;
  /** The memory and stack limits it was made with (a job with other limits needs another). */
  key: string;
}

/** The limits a context is made with, as a key. */
export function limitsKey(limits: Pick<SandboxLimits, 'memoryBytes' | 'stackBytes'>): string {
  return `${limits.memoryBytes}/${limits.stackBytes}`;
}

/**
 * Makes a runtime (memory and stack limits set) and a context, and loads the guest core into it. Loading
 * the guest is most of an evaluation's cost, so the worker makes the next one while it waits for work.
 */
export function openGuestContext(module: QuickJSWASMModule, limits: Pick<SandboxLimits, 'memoryBytes' | 'stackBytes'>): GuestContext {
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  const context = runtime.newContext({ intrinsics: INTRINSICS });
  try {
    const core = context.unwrapResult(context.evalCode(GUEST_CORE, 'troupe-guest.js', { type: 'global', strict: true }));
    // The guest asks for its other parts by name; only their source crosses, as a string.
    const load = context.newFunction('load', (name) => context.newString(GUEST_MODULES[context.getString(name)] ?? 'return {};'));
    const started = context.callFunction(core, context.undefined, load);
    load.dispose();
    core.dispose();
    return { runtime, context, run: context.unwrapResult(started), key: limitsKey(limits) };
  } catch (error) {
    context.dispose();
    runtime.dispose();
    throw error;
  }
}

/** Frees a context and its runtime; false when QuickJS failed to (the module is then not to be trusted). */
export function closeGuestContext(guest: GuestContext): boolean {
  try {
    guest.run.dispose();
    guest.context.dispose();
    guest.runtime.dispose();
    return true;
  } catch {
    return false;
  }
}

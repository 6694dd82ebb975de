import { toKey } from './members.js';
import { bail, Env, GLOBAL_THIS, type Runner, TIER_LIMITS, TierFunction, TierNative } from './values.js';

/** Resolves a free name the code's own bindings do not hold (the scope's names, the globals); bails on an unknown one. */
export type FreeNames = (name: string) => unknown;

/**
 * A run of compiled code (compile.ts) over the tier's values: its step budget (every statement and expression
 * counts one; a built-in's work counts in proportion), its call depth, the free names it resolves and the calls
 * it makes of functions written in workflow code. Whatever it does not model gives up with Bail.
 */
export class Interpreter implements Runner {
  steps = 0;
  private depth = 0;

  /** primitives: === and !== with an object on either side give up (the engine's in-step decisions compare data, never identities). */
  constructor(
    readonly free: FreeNames,
    readonly primitives = false,
  ) {}

  /** One step of the budget. */
  tick(): void {
    if (++this.steps > TIER_LIMITS.steps) bail('step budget');
  }

  /** Work a built-in does in proportion to its input or output (characters, elements), counted against the step budget. */
  spend(units: number): void {
    // Small work is the step that asked for it: the count of steps of code over small data is as it was.
    if (units < TIER_LIMITS.unitsPerStep) return;
    this.steps += Math.floor(units / TIER_LIMITS.unitsPerStep);
    if (this.steps > TIER_LIMITS.steps) bail('step budget');
  }

  /** A property key (ToPropertyKey), its text's hashing counted. */
  key(v: unknown): string {
    const key = toKey(v);
    this.spend(key.length);
    return key;
  }

  /** Calls a function value with a receiver and arguments. */
  call(fn: unknown, receiver: unknown, args: unknown[]): unknown {
    if (fn instanceof TierNative) return fn.call(receiver, args, this);
    if (!(fn instanceof TierFunction)) return bail('call of a value that is not a function');
    if (++this.depth > TIER_LIMITS.depth) bail('call depth');
    try {
      const env = new Env(fn.env);
      const { params, run } = fn.code;
      for (let i = 0; i < params.length; i++) env.vars.set(params[i]!, { value: args[i], mutable: true, ready: true });
      // Sloppy code boxes a primitive `this` (a Number, String or Boolean object): not modelled.
      if (!fn.arrow && receiver !== undefined && receiver !== null && typeof receiver !== 'object') bail('this of a primitive');
      const self = fn.arrow ? fn.lexicalThis : receiver === undefined || receiver === null ? GLOBAL_THIS : receiver;
      return run(this, env, self);
    } finally {
      this.depth -= 1;
    }
  }

  /**
   * A string made by + or a template: V8 makes it a rope (no copy) that the first read of a character, a slice or a
   * comparison copies whole, so its length is counted now (a megabyte concatenated and read each step held the
   * host's thread for 13 s within the step budget).
   */
  concatenated(s: string): string {
    this.spend(s.length);
    return s;
  }

  /** A string the code made, within the tier's cap. */
  cap(s: string): string {
    if (s.length > TIER_LIMITS.stringChars) bail('string over the cap');
    return s;
  }
}

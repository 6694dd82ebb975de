/**
 * The values of the host tier's interpreter. Guest data is host data made by the tier itself: plain objects and
 * arrays (its own copies, never the engine's), primitives, and String objects it made (`this.input`,
 * `this.last_response`). Functions and the guest's special objects are instances of the classes below, which no
 * host built-in ever receives: the interpreter dispatches on them itself.
 */

/** Thrown to give up: the evaluation goes to the QuickJS sandbox, and nothing the tier did is kept. */
export class Bail extends Error {
  /** ofCode: the code uses what the tier never models, whatever its data (see refuse): the tier need not try it again. */
  constructor(
    readonly why: string,
    readonly ofCode = false,
  ) {
    super(why);
  }
}

/** Gives up (never returns): on what this run met (a value's type, a size, a budget), which other data may not meet. */
export function bail(why: string): never {
  throw new Bail(why);
}

/**
 * Gives up on the code itself (never returns): it names what the tier does not model for any data (a free name, a
 * member or method the tier does not implement, a form it does not run). The program is not tried again (run.ts).
 */
export function refuse(why: string): never {
  throw new Bail(why, true);
}

/** An error the tier models (only JSON.parse's), thrown inside the interpreter until a catch takes it. */
export class GuestThrow {
  constructor(readonly error: Opaque) {}
}

/** A value code may hold but not look into (a caught error): any use of it gives up. */
export class Opaque {}

/** A binding: its value (made on first read by `lazy`, when set), whether code may assign it, and whether its declaration ran (TDZ before). */
export interface Slot {
  value: unknown;
  mutable: boolean;
  ready: boolean;
  lazy?: () => unknown;
}

/** Bindings of one block or function, by name: a binding is TDZ until its declaration runs. */
export class Env {
  readonly vars = new Map<string, Slot>();
  constructor(readonly parent: Env | null) {}
}

/** A slot's value (made now if it is lazy). */
export function slotValue(slot: Slot): unknown {
  if (slot.lazy) {
    slot.value = slot.lazy();
    slot.lazy = undefined;
  }
  return slot.value;
}

/** What compiled code (compile.ts) runs with: a Running, with the run's step count, its free names and its key and string rules (interpret.ts's Interpreter). */
export interface Runner extends Running {
  steps: number;
  /** === and !== with an object on either side give up (the engine's in-step decisions). */
  readonly primitives: boolean;
  /** A free name's value (the scope's names, the globals); gives up on an unknown one. */
  readonly free: (name: string) => unknown;
  key(v: unknown): string;
  concatenated(s: string): string;
}

/** A function written in workflow code, compiled once (compile.ts): its parameters' names, and its body run in an environment holding them. */
export interface FunctionCode {
  params: string[];
  arrow: boolean;
  run: (r: Runner, env: Env, self: unknown) => unknown;
}

/** A function written in workflow code (or script.js): its compiled code, where it was made, and `this` for an arrow. */
export class TierFunction {
  constructor(
    readonly code: FunctionCode,
    readonly env: Env,
    readonly arrow: boolean,
    readonly lexicalThis: unknown,
  ) {}
}

/** What a TierNative may ask of the interpreter running it: to call back a function, count a step (or the work of many), cap a string. */
export interface Running {
  call(fn: unknown, receiver: unknown, args: unknown[]): unknown;
  tick(): void;
  spend(units: number): void;
  cap(s: string): string;
}

/** A function the guest offers (getAgent, addMessage, an array's find): implemented here, called with the receiver and arguments. */
export class TierNative {
  constructor(
    readonly name: string,
    readonly call: (receiver: unknown, args: unknown[], running: Running) => unknown,
  ) {}
}

/** The work units of an element (a node of data) a built-in walks or makes: several times a character's. */
export const ELEMENT_UNITS = 8;

/**
 * The tier's budgets: past any of them it gives up (the sandbox, with its own limits, runs the code). A built-in's
 * work counts one step per unitsPerStep characters or elements it walks or makes (a step of the interpreter costs
 * about what a scan of 100-200 characters does): a megabyte scanned each step would hold the host's thread for a minute.
 */
export const TIER_LIMITS = { steps: 200_000, depth: 48, stringChars: 1 << 20, arrayLength: 100_000, unitsPerStep: 128 };

/** `this` of a function called without a receiver in sloppy code (the global object): any use of it gives up. */
export const GLOBAL_THIS = new Opaque();

/** Property names never read or written: they reach prototypes. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

// String objects the tier made (their text and own properties are known: no getter, nothing inherited is read).
const strings = new WeakSet<object>();

/** A String object with own data properties, as the guest makes `this.input` and `this.last_response`. */
export function stringObject(text: string, props: Record<string, unknown>): object {
  const s = new String(text) as unknown as Record<string, unknown>;
  // Names that are not indexes nor length (callers see to it): plain assignment makes own, writable, enumerable, configurable data.
  for (const k in props) s[k] = props[k];
  strings.add(s);
  return s;
}

/** Whether a value is a String object the tier made. */
export function isStringObject(v: unknown): v is string & object {
  return typeof v === 'object' && v !== null && strings.has(v);
}

/** The text of a String object the tier made. */
export function textOf(v: object): string {
  return String.prototype.valueOf.call(v);
}

// Data code may read and not change (a context's messages, as the tier copied them): a change gives up (the guest
// would send the whole list changed; the sandbox answers that).
const locked = new WeakSet<object>();

/** Marks an array or object of the tier's own as read-only for code (setMember and the array methods that change it give up). */
export function lock<T extends object>(v: T): T {
  locked.add(v);
  return v;
}

/** Gives up when code would change data marked read-only (lock). */
export function changeable(v: object): void {
  if (locked.has(v)) bail("a change to a context's messages");
}

/** Whether a value is a plain object made by JSON.parse or by the interpreter (its prototype Object.prototype). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype && !strings.has(v);
}

/** Whether a value is callable in workflow code. */
export function isCallable(v: unknown): v is TierFunction | TierNative {
  return v instanceof TierFunction || v instanceof TierNative;
}

/** An object the guest offers (this, a context, an agent, a Map of contexts, console): its members answered by the tier. */
export abstract class TierObject {
  /** The member `key` (a TierNative for a method); bails on what the tier does not model. */
  abstract get(key: string): unknown;
  /** Sets a member; by default the tier does not model it. */
  set(key: string, _value: unknown): void {
    bail(`setting ${key} on a guest object`);
  }
}

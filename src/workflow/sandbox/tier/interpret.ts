import type { Node } from 'acorn';
import { isNumberLike, primitive, toText, truthy, typeOf } from './coerce.js';
import { memberOf, setMember, toKey } from './members.js';
import { bail, Env, GLOBAL_THIS, GuestThrow, isCallable, type Running, type Slot, slotValue, TIER_LIMITS, TierFunction, TierNative } from './values.js';

// biome-ignore lint/suspicious/noExplicitAny: acorn's nodes are read by their type tag, field by field.
type N = Node & Record<string, any>;
/** How a statement ended: normally (undefined), or by return / break / continue. */
/** An assignment's target: a binding by name, or an object's member by key. */
type Reference = { name: string } | { object: unknown; key: string };
type Completion = undefined | { kind: 'return'; value: unknown } | { kind: 'break' } | { kind: 'continue' };
const BREAK: Completion = { kind: 'break' };
const CONTINUE: Completion = { kind: 'continue' };
// What a chain gives when a `?.` met null or undefined: the rest of the chain is skipped (a value code never holds).
const SHORT = Symbol('short-circuit');

/** Resolves a free name the code's own bindings do not hold (the scope's names, the globals); bails on an unknown one. */
export type FreeNames = (name: string) => unknown;

/**
 * Runs the subset of JavaScript that parse.ts lets through, over the tier's values, as QuickJS runs it in sloppy
 * mode; anything whose outcome it does not model (a TypeError, a throw, a coercion of an object) gives up with
 * Bail. Every node counts a step; calls count depth; strings and arrays it makes are capped.
 */
export class Interpreter implements Running {
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
      const node = fn.node;
      node.params.forEach((p, i) => {
        env.vars.set((p as N).name, { value: args[i], mutable: true, ready: true });
      });
      // Sloppy code boxes a primitive `this` (a Number, String or Boolean object): not modelled.
      if (!fn.arrow && receiver !== undefined && receiver !== null && typeof receiver !== 'object') bail('this of a primitive');
      const self = fn.arrow ? fn.lexicalThis : receiver === undefined || receiver === null ? GLOBAL_THIS : receiver;
      if (node.expression) return this.expr(node.body as N, env, self);
      const done = this.block((node.body as N).body as N[], env, self);
      return done?.kind === 'return' ? done.value : undefined;
    } finally {
      this.depth -= 1;
    }
  }

  /** Runs a function body's statements (function declarations hoisted); the completion they end with. */
  block(body: N[], env: Env, self: unknown): Completion {
    for (const s of body) {
      if (s.type === 'FunctionDeclaration') env.vars.set(s.id.name, { value: this.closure(s, env, self), mutable: true, ready: true });
      else if (s.type === 'VariableDeclaration') for (const d of s.declarations) declare(env, d.id.name, s.kind !== 'const', false);
    }
    for (const s of body) {
      const done = this.stmt(s, env, self);
      if (done) return done;
    }
    return undefined;
  }

  private closure(node: N, env: Env, self: unknown): TierFunction {
    return new TierFunction(node as never, env, node.type === 'ArrowFunctionExpression', self);
  }

  stmt(s: N, env: Env, self: unknown): Completion {
    this.tick();
    switch (s.type) {
      case 'ExpressionStatement':
        this.expr(s.expression, env, self);
        return undefined;
      case 'EmptyStatement':
      case 'FunctionDeclaration':
        return undefined;
      case 'ReturnStatement':
        return { kind: 'return', value: s.argument ? this.expr(s.argument, env, self) : undefined };
      case 'VariableDeclaration':
        for (const d of s.declarations) {
          const value = d.init ? this.expr(d.init, env, self) : undefined;
          if (!d.init && s.kind === 'const') bail('const without a value');
          if (!env.vars.has(d.id.name)) declare(env, d.id.name, s.kind !== 'const', true);
          const b = env.vars.get(d.id.name)!;
          b.value = value;
          b.ready = true;
        }
        return undefined;
      case 'BlockStatement':
        return this.block(s.body, new Env(env), self);
      case 'IfStatement':
        if (truthy(this.expr(s.test, env, self))) return this.stmt(s.consequent, env, self);
        return s.alternate ? this.stmt(s.alternate, env, self) : undefined;
      case 'TryStatement':
        return this.tryStatement(s, env, self);
      case 'ForStatement':
        return this.forStatement(s, env, self);
      case 'ForOfStatement':
        return this.forOf(s, env, self);
      case 'WhileStatement':
        while (truthy(this.expr(s.test, env, self))) {
          const done = this.stmt(s.body, env, self);
          if (done === BREAK) break;
          if (done && done !== CONTINUE) return done;
        }
        return undefined;
      case 'BreakStatement':
        return BREAK;
      case 'ContinueStatement':
        return CONTINUE;
      default:
        return bail(`statement ${s.type}`);
    }
  }

  private tryStatement(s: N, env: Env, self: unknown): Completion {
    try {
      return this.stmt(s.block, env, self);
    } catch (error) {
      // Only an error the tier models (JSON.parse's) is caught; anything else gives up whole.
      if (!(error instanceof GuestThrow)) throw error;
      const inner = new Env(env);
      if (s.handler.param) inner.vars.set(s.handler.param.name, { value: error.error, mutable: true, ready: true });
      return this.stmt(s.handler.body, inner, self);
    }
  }

  private forStatement(s: N, env: Env, self: unknown): Completion {
    const loopEnv = new Env(env);
    const perIteration = s.init?.type === 'VariableDeclaration' && s.init.kind === 'let';
    if (s.init) {
      if (s.init.type === 'VariableDeclaration') this.stmt(s.init, loopEnv, self);
      else this.expr(s.init, loopEnv, self);
    }
    // A closure made in the body would see a copy per iteration (let): not modelled, so the body may make none.
    if (perIteration && makesClosures(s)) bail('closure in a for loop');
    for (;;) {
      this.tick();
      if (s.test && !truthy(this.expr(s.test, loopEnv, self))) break;
      const done = this.stmt(s.body, loopEnv, self);
      if (done === BREAK) break;
      if (done && done !== CONTINUE) return done;
      if (s.update) this.expr(s.update, loopEnv, self);
    }
    return undefined;
  }

  private forOf(s: N, env: Env, self: unknown): Completion {
    const list = this.expr(s.right, env, self);
    // Arrays only, by index to the length as it is at each step (what the array iterator does).
    if (!Array.isArray(list)) return bail('for...of over a value that is not an array');
    const name = s.left.declarations[0].id.name;
    for (let i = 0; i < list.length; i++) {
      this.tick();
      const inner = new Env(env);
      inner.vars.set(name, { value: list[i], mutable: s.left.kind !== 'const', ready: true });
      const done = this.stmt(s.body, inner, self);
      if (done === BREAK) break;
      if (done && done !== CONTINUE) return done;
    }
    return undefined;
  }

  expr(e: N, env: Env, self: unknown): unknown {
    this.tick();
    switch (e.type) {
      case 'Literal':
        return e.value;
      case 'Identifier':
        return this.lookup(e.name, env);
      case 'ThisExpression':
        if (self === GLOBAL_THIS) bail('this of a plain call (the global object)');
        return self;
      case 'TemplateLiteral': {
        let out = e.quasis[0].value.cooked as string;
        for (let i = 0; i < e.expressions.length; i++) out = this.cap(out + toText(this.expr(e.expressions[i], env, self)) + (e.quasis[i + 1].value.cooked as string));
        this.concatenated(out);
        return out;
      }
      case 'ArrayExpression': {
        const out: unknown[] = [];
        for (const el of e.elements) {
          if (el.type === 'SpreadElement') bail('spread');
          out.push(this.expr(el, env, self));
        }
        return out;
      }
      case 'ObjectExpression':
        return this.object(e, env, self);
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
        return this.closure(e, env, self);
      case 'UnaryExpression':
        return this.unary(e, env, self);
      case 'BinaryExpression':
        return this.binary(e.operator, this.expr(e.left, env, self), this.expr(e.right, env, self));
      case 'LogicalExpression': {
        const left = this.expr(e.left, env, self);
        if (e.operator === '&&') return truthy(left) ? this.expr(e.right, env, self) : left;
        if (e.operator === '||') return truthy(left) ? left : this.expr(e.right, env, self);
        return left === null || left === undefined ? this.expr(e.right, env, self) : left;
      }
      case 'ConditionalExpression':
        return truthy(this.expr(e.test, env, self)) ? this.expr(e.consequent, env, self) : this.expr(e.alternate, env, self);
      case 'AssignmentExpression':
        return this.assign(e, env, self);
      case 'UpdateExpression': {
        // The target's object and key are evaluated once, before it is read and written back.
        const target = this.reference(e.argument, env, self);
        const old = this.read(target, env);
        if (typeof old !== 'number') bail('++/-- of a value that is not a number');
        const next = e.operator === '++' ? (old as number) + 1 : (old as number) - 1;
        this.write(target, next, env);
        return e.prefix ? next : old;
      }
      case 'ChainExpression':
        return this.unshort(this.chain(e.expression, env, self));
      case 'MemberExpression':
      case 'CallExpression':
        return this.unshort(this.chain(e, env, self));
      default:
        return bail(`expression ${e.type}`);
    }
  }

  private object(e: N, env: Env, self: unknown): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const p of e.properties) {
      if (p.type !== 'Property') bail('spread in an object');
      const key = p.computed ? this.key(this.expr(p.key, env, self)) : p.key.type === 'Identifier' ? p.key.name : toKey(p.key.value);
      const value = this.expr(p.value, env, self);
      // Methods and functions get no home object or name here: code that reads either runs in the sandbox.
      Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    }
    return out;
  }

  private unary(e: N, env: Env, self: unknown): unknown {
    if (e.operator === 'typeof') {
      // typeof of a name that is not defined is 'undefined'; the tier gives up on such names instead.
      return typeOf(this.expr(e.argument, env, self));
    }
    const v = this.expr(e.argument, env, self);
    if (e.operator === '!') return !truthy(v);
    if (typeof v !== 'number') return bail(`${e.operator} of a value that is not a number`);
    return e.operator === '-' ? -v : v;
  }

  /** A binary operator on two values, where QuickJS and V8 agree by the standard (no object coercion). */
  binary(op: string, a: unknown, b: unknown): unknown {
    switch (op) {
      case '===':
      case '!==':
        if (this.primitives && ((typeof a === 'object' && a !== null) || (typeof b === 'object' && b !== null))) bail('an object compared in the step');
        if (typeof a === 'string' && typeof b === 'string') this.spend(Math.min(a.length, b.length));
        return op === '===' ? a === b : a !== b;
      case '==':
      case '!=': {
        let same: boolean;
        if (a === null || a === undefined || b === null || b === undefined) same = (a === null || a === undefined) && (b === null || b === undefined);
        else if (typeof a === typeof b && typeof a !== 'object' && typeof a !== 'function') {
          if (typeof a === 'string') this.spend(Math.min(a.length, (b as string).length));
          same = a === b;
        } else return bail('== between values of different kinds');
        return op === '==' ? same : !same;
      }
      case '+': {
        if (typeof a === 'number' && typeof b === 'number') return a + b;
        const x = primitive(a);
        const y = primitive(b);
        if (typeof x === 'string' || typeof y === 'string') return this.concatenated(this.cap(toText(x) + toText(y)));
        if (isNumberLike(x) && isNumberLike(y)) return Number(x) + Number(y);
        return bail('+ of these values');
      }
      case '-':
      case '*':
      case '/':
      case '%':
        if (typeof a !== 'number' || typeof b !== 'number') return bail(`${op} of a value that is not a number`);
        return op === '-' ? a - b : op === '*' ? a * b : op === '/' ? a / b : a % b;
      default: {
        const x = primitive(a);
        const y = primitive(b);
        if (!((typeof x === 'number' && typeof y === 'number') || (typeof x === 'string' && typeof y === 'string'))) return bail(`${op} of values of different kinds`);
        if (typeof x === 'string') this.spend(Math.min(x.length, (y as string).length));
        const [p, q] = [x as number, y as number];
        return op === '<' ? p < q : op === '>' ? p > q : op === '<=' ? p <= q : p >= q;
      }
    }
  }

  private assign(e: N, env: Env, self: unknown): unknown {
    // As the standard orders it: the target's object and key first, then (for += and -=) its value, then the right side.
    const target = this.reference(e.left, env, self);
    let value: unknown;
    if (e.operator === '=') value = this.expr(e.right, env, self);
    else {
      const old = this.read(target, env);
      value = this.binary(e.operator === '+=' ? '+' : '-', old, this.expr(e.right, env, self));
    }
    this.write(target, value, env);
    return value;
  }

  /** What an assignment or ++ writes to: a name, or an object and key evaluated once. */
  private reference(target: N, env: Env, self: unknown): Reference {
    if (target.type === 'Identifier') return { name: target.name as string };
    if (target.optional) bail('optional chain as a target');
    const object = this.unshort(this.chain(target.object, env, self));
    const key = target.computed ? this.key(this.expr(target.property, env, self)) : (target.property.name as string);
    return { object, key };
  }

  private read(target: Reference, env: Env): unknown {
    return 'name' in target ? this.lookup(target.name, env) : memberOf(target.object, target.key);
  }

  private write(target: Reference, value: unknown, env: Env): void {
    if ('object' in target) return setMember(target.object, target.key, value);
    const slot = find(env, target.name);
    // An undeclared name: sloppy code would make a global (or write a scope parameter): the sandbox decides.
    if (!slot) return bail(`assignment to ${target.name}`);
    if (!slot.ready) bail('assignment before declaration');
    if (!slot.mutable) bail('assignment to a const');
    slot.lazy = undefined;
    slot.value = value;
  }

  /** A member read or call, with optional chaining: SHORT when a `?.` met null or undefined (the whole chain is undefined). */
  private chain(e: N, env: Env, self: unknown): unknown {
    if (e.type === 'MemberExpression') {
      const base = this.chain(e.object, env, self);
      if (base === SHORT) return base;
      if (e.optional && (base === null || base === undefined)) return SHORT;
      const key = e.computed ? this.key(this.expr(e.property, env, self)) : (e.property.name as string);
      return memberOf(base, key);
    }
    if (e.type === 'CallExpression') {
      let receiver: unknown;
      let fn: unknown;
      if (e.callee.type === 'MemberExpression') {
        const base = this.chain(e.callee.object, env, self);
        if (base === SHORT) return base;
        if (e.callee.optional && (base === null || base === undefined)) return SHORT;
        receiver = base;
        const key = e.callee.computed ? this.key(this.expr(e.callee.property, env, self)) : (e.callee.property.name as string);
        fn = memberOf(receiver, key);
      } else {
        fn = this.chain(e.callee, env, self);
        if (fn === SHORT) return fn;
      }
      if (e.optional && (fn === null || fn === undefined)) return SHORT;
      if (!isCallable(fn)) return bail('call of a value that is not a function');
      const args: unknown[] = [];
      for (const a of e.arguments) {
        if (a.type === 'SpreadElement') bail('spread');
        args.push(this.expr(a, env, self));
      }
      return this.call(fn, receiver, args);
    }
    // A chain in parentheses ends there: `(a?.b).c` reads c of undefined.
    if (e.type === 'ChainExpression') return this.unshort(this.chain(e.expression, env, self));
    return this.expr(e, env, self);
  }

  private unshort(v: unknown): unknown {
    return v === SHORT ? undefined : v;
  }

  private lookup(name: string, env: Env): unknown {
    const slot = find(env, name);
    if (slot) {
      if (!slot.ready) bail('read before declaration');
      return slotValue(slot);
    }
    if (name === 'undefined') return undefined;
    if (name === 'NaN') return Number.NaN;
    if (name === 'Infinity') return Number.POSITIVE_INFINITY;
    return this.free(name);
  }

  /**
   * A string made by + or a template: V8 makes it a rope (no copy) that the first read of a character, a slice or a
   * comparison copies whole, so its length is counted now (a megabyte concatenated and read each step held the
   * host's thread for 13 s within the step budget).
   */
  private concatenated(s: string): string {
    this.spend(s.length);
    return s;
  }

  /** A string the code made, within the tier's cap. */
  cap(s: string): string {
    if (s.length > TIER_LIMITS.stringChars) bail('string over the cap');
    return s;
  }
}

function declare(env: Env, name: string, mutable: boolean, ready: boolean): void {
  // Only a parameter can be there already (acorn refuses the rest): QuickJS refuses that redeclaration.
  if (env.vars.has(name)) bail(`a declaration of the parameter ${name}`);
  env.vars.set(name, { value: undefined, mutable, ready });
}

function find(env: Env | null, name: string): Slot | undefined {
  for (let e = env; e; e = e.parent) {
    const slot = e.vars.get(name);
    if (slot) return slot;
  }
  return undefined;
}

function makesClosures(node: N): boolean {
  if (node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression' || node.type === 'FunctionDeclaration') return true;
  for (const key in node) {
    const child = node[key];
    if (Array.isArray(child)) {
      for (const c of child) if (c && typeof c.type === 'string' && makesClosures(c)) return true;
    } else if (child && typeof child === 'object' && typeof child.type === 'string' && makesClosures(child)) return true;
  }
  return false;
}

import type { Node } from 'acorn';
import { isNumberLike, primitive, toText, truthy, typeOf } from './coerce.js';
import { memberOf, setMember, toKey } from './members.js';
import { Bail, bail, Env, type FunctionCode, GLOBAL_THIS, GuestThrow, isCallable, refuse, type Runner, type Slot, slotValue, TierFunction } from './values.js';

// biome-ignore lint/suspicious/noExplicitAny: acorn's nodes are read by their type tag, field by field.
type N = Node & Record<string, any>;
/** How a statement ended: normally (undefined), or by return / break / continue. */
export type StatementEnd = undefined | { kind: 'return'; value: unknown } | { kind: 'break' } | { kind: 'continue' };
/** A compiled expression: its value in a run, an environment and a `this`. */
type Code = (r: Runner, env: Env, self: unknown) => unknown;
/** A compiled statement (or body): how it ended. */
export type Statement = (r: Runner, env: Env, self: unknown) => StatementEnd;
const BREAK: StatementEnd = { kind: 'break' };
const CONTINUE: StatementEnd = { kind: 'continue' };
// What a chain gives when a `?.` met null or undefined: the rest of the chain is skipped (a value code never holds).
const SHORT = Symbol('short-circuit');

// Bodies by their parsed program (a parse is made once per source, see parse.ts): compiled once.
const compiled = new WeakMap<Node, Statement>();

/**
 * A parsed body (what parse.ts lets through) made once into closures that run it over the tier's values, as
 * QuickJS runs it in sloppy mode: a tree of functions, one per node, so an evaluation runs no switch over node
 * types. Anything whose outcome it does not model (a TypeError, a throw, a coercion of an object) gives up with
 * Bail when it runs. Every statement and expression counts a step (Runner.tick); calls count depth; strings
 * and arrays it makes are capped. The body runs in the environment it is given (its declarations hoisted there).
 */
export function compileBody(program: Node): Statement {
  let found = compiled.get(program);
  if (!found) {
    found = block((program as N).body as N[]);
    compiled.set(program, found);
  }
  return found;
}

/** A function body's statements (function declarations and bindings hoisted into the environment it runs in); the completion they end with. */
function block(body: N[]): Statement {
  const hoists: ((env: Env, self: unknown) => void)[] = [];
  for (const s of body) {
    if (s.type === 'FunctionDeclaration') {
      const name = s.id.name as string;
      const code = functionCode(s);
      hoists.push((env, self) => env.vars.set(name, { value: new TierFunction(code, env, false, self), mutable: true, ready: true }));
    } else if (s.type === 'VariableDeclaration') {
      for (const d of s.declarations) {
        const name = d.id.name as string;
        const mutable = s.kind !== 'const';
        hoists.push((env) => declare(env, name, mutable, false));
      }
    }
  }
  const statements = body.map(statement);
  const count = statements.length;
  return (r, env, self) => {
    for (let i = 0; i < hoists.length; i++) hoists[i]!(env, self);
    for (let i = 0; i < count; i++) {
      const done = statements[i]!(r, env, self);
      if (done) return done;
    }
    return undefined;
  };
}

/** A function's parameters and its body, run in an environment holding its arguments (Runner.call). */
function functionCode(node: N): FunctionCode {
  const params = (node.params as N[]).map((p) => p.name as string);
  const arrow = node.type === 'ArrowFunctionExpression';
  if (node.expression) return { params, arrow, run: expression(node.body) };
  const body = block(node.body.body);
  return {
    params,
    arrow,
    run: (r, env, self) => {
      const done = body(r, env, self);
      return done?.kind === 'return' ? done.value : undefined;
    },
  };
}

function statement(s: N): Statement {
  switch (s.type) {
    case 'ExpressionStatement': {
      const e = expression(s.expression);
      return (r, env, self) => {
        r.tick();
        e(r, env, self);
        return undefined;
      };
    }
    case 'EmptyStatement':
    case 'FunctionDeclaration':
      return (r) => {
        r.tick();
        return undefined;
      };
    case 'ReturnStatement': {
      const argument = s.argument ? expression(s.argument) : null;
      return (r, env, self) => {
        r.tick();
        return { kind: 'return', value: argument ? argument(r, env, self) : undefined };
      };
    }
    case 'VariableDeclaration':
      return declaration(s);
    case 'BlockStatement': {
      const body = block(s.body);
      // A block that declares nothing has no binding of its own: it runs in the scope around it (the same names, the same values).
      if (!(s.body as N[]).some((d) => d.type === 'FunctionDeclaration' || d.type === 'VariableDeclaration')) {
        return (r, env, self) => {
          r.tick();
          return body(r, env, self);
        };
      }
      return (r, env, self) => {
        r.tick();
        return body(r, new Env(env), self);
      };
    }
    case 'IfStatement': {
      const test = expression(s.test);
      const consequent = statement(s.consequent);
      const alternate = s.alternate ? statement(s.alternate) : null;
      return (r, env, self) => {
        r.tick();
        if (truthy(test(r, env, self))) return consequent(r, env, self);
        return alternate ? alternate(r, env, self) : undefined;
      };
    }
    case 'TryStatement':
      return tryStatement(s);
    case 'ForStatement':
      return forStatement(s);
    case 'ForOfStatement':
      return forOf(s);
    case 'WhileStatement': {
      const test = expression(s.test);
      const body = statement(s.body);
      return (r, env, self) => {
        r.tick();
        while (truthy(test(r, env, self))) {
          const done = body(r, env, self);
          if (done === BREAK) break;
          if (done && done !== CONTINUE) return done;
        }
        return undefined;
      };
    }
    case 'BreakStatement':
      return (r) => {
        r.tick();
        return BREAK;
      };
    case 'ContinueStatement':
      return (r) => {
        r.tick();
        return CONTINUE;
      };
    default: {
      const why = `statement ${s.type}`;
      return (r) => {
        r.tick();
        return refuse(why);
      };
    }
  }
}

function declaration(s: N): Statement {
  const mutable = s.kind !== 'const';
  const declarators = (s.declarations as N[]).map((d) => ({ name: d.id.name as string, init: d.init ? expression(d.init) : null }));
  return (r, env, self) => {
    r.tick();
    for (const d of declarators) {
      const value = d.init ? d.init(r, env, self) : undefined;
      if (!d.init && !mutable) bail('const without a value');
      let b = env.vars.get(d.name);
      if (!b) {
        declare(env, d.name, mutable, true);
        b = env.vars.get(d.name)!;
      }
      b.value = value;
      b.ready = true;
    }
    return undefined;
  };
}

function tryStatement(s: N): Statement {
  const body = statement(s.block);
  const param = s.handler.param ? (s.handler.param.name as string) : null;
  const handler = statement(s.handler.body);
  return (r, env, self) => {
    r.tick();
    try {
      return body(r, env, self);
    } catch (error) {
      // Only an error the tier models (JSON.parse's) is caught; anything else gives up whole.
      if (!(error instanceof GuestThrow)) throw error;
      const inner = new Env(env);
      if (param !== null) inner.vars.set(param, { value: error.error, mutable: true, ready: true });
      return handler(r, inner, self);
    }
  };
}

function forStatement(s: N): Statement {
  const init = s.init ? (s.init.type === 'VariableDeclaration' ? declaration(s.init) : expression(s.init)) : null;
  // A closure made in the body would see a copy per iteration (let): not modelled, so the body may make none.
  const perIterationClosure = s.init?.type === 'VariableDeclaration' && s.init.kind === 'let' && makesClosures(s);
  const test = s.test ? expression(s.test) : null;
  const body = statement(s.body);
  const update = s.update ? expression(s.update) : null;
  return (r, env, self) => {
    r.tick();
    const loopEnv = new Env(env);
    if (init) init(r, loopEnv, self);
    if (perIterationClosure) refuse('closure in a for loop');
    for (;;) {
      r.tick();
      if (test && !truthy(test(r, loopEnv, self))) break;
      const done = body(r, loopEnv, self);
      if (done === BREAK) break;
      if (done && done !== CONTINUE) return done;
      if (update) update(r, loopEnv, self);
    }
    return undefined;
  };
}

function forOf(s: N): Statement {
  const list = expression(s.right);
  const name = s.left.declarations[0].id.name as string;
  const mutable = s.left.kind !== 'const';
  const body = statement(s.body);
  return (r, env, self) => {
    r.tick();
    const items = list(r, env, self);
    // Arrays only, by index to the length as it is at each step (what the array iterator does).
    if (!Array.isArray(items)) return bail('for...of over a value that is not an array');
    for (let i = 0; i < items.length; i++) {
      r.tick();
      const inner = new Env(env);
      inner.vars.set(name, { value: items[i], mutable, ready: true });
      const done = body(r, inner, self);
      if (done === BREAK) break;
      if (done && done !== CONTINUE) return done;
    }
    return undefined;
  };
}

// Each expression counts a step when it runs, then does its work.
function expression(e: N): Code {
  switch (e.type) {
    case 'Literal': {
      const value = e.value;
      return (r) => {
        r.tick();
        return value;
      };
    }
    case 'Identifier':
      return identifier(e.name as string);
    case 'ThisExpression':
      return (r, _env, self) => {
        r.tick();
        if (self === GLOBAL_THIS) bail('this of a plain call (the global object)');
        return self;
      };
    case 'TemplateLiteral': {
      const quasis = (e.quasis as N[]).map((q) => q.value.cooked as string);
      const parts = (e.expressions as N[]).map(expression);
      return (r, env, self) => {
        r.tick();
        let out = quasis[0]!;
        for (let i = 0; i < parts.length; i++) out = r.cap(out + toText(parts[i]!(r, env, self)) + quasis[i + 1]!);
        return r.concatenated(out);
      };
    }
    case 'ArrayExpression': {
      const elements = (e.elements as N[]).map((el) => (el.type === 'SpreadElement' ? () => refuse('spread') : expression(el)));
      return (r, env, self) => {
        r.tick();
        const out: unknown[] = [];
        for (let i = 0; i < elements.length; i++) out.push(elements[i]!(r, env, self));
        return out;
      };
    }
    case 'ObjectExpression':
      return object(e);
    case 'FunctionExpression':
    case 'ArrowFunctionExpression': {
      const code = functionCode(e);
      const arrow = code.arrow;
      return (r, env, self) => {
        r.tick();
        return new TierFunction(code, env, arrow, self);
      };
    }
    case 'UnaryExpression':
      return unary(e);
    case 'BinaryExpression': {
      const op = BINARY[e.operator as string] ?? (() => refuse(`operator ${e.operator}`));
      const left = expression(e.left);
      const right = expression(e.right);
      return (r, env, self) => {
        r.tick();
        return op(r, left(r, env, self), right(r, env, self));
      };
    }
    case 'LogicalExpression':
      return logical(e);
    case 'ConditionalExpression': {
      const test = expression(e.test);
      const consequent = expression(e.consequent);
      const alternate = expression(e.alternate);
      return (r, env, self) => {
        r.tick();
        return truthy(test(r, env, self)) ? consequent(r, env, self) : alternate(r, env, self);
      };
    }
    case 'AssignmentExpression':
      return assignment(e);
    case 'UpdateExpression':
      return update(e);
    case 'ChainExpression': {
      const inner = chain(e.expression);
      return (r, env, self) => {
        r.tick();
        const v = inner(r, env, self);
        return v === SHORT ? undefined : v;
      };
    }
    case 'MemberExpression':
    case 'CallExpression': {
      const inner = chain(e);
      return (r, env, self) => {
        r.tick();
        const v = inner(r, env, self);
        return v === SHORT ? undefined : v;
      };
    }
    default: {
      const why = `expression ${e.type}`;
      return (r) => {
        r.tick();
        return refuse(why);
      };
    }
  }
}

function identifier(name: string): Code {
  const read = reader(name);
  return (r, env) => {
    r.tick();
    return read(r, env);
  };
}

// A name's value (no step counted): its binding, else the three constant globals, else the free name (the scope, the globals).
function reader(name: string): (r: Runner, env: Env) => unknown {
  const absent = name === 'undefined' ? () => undefined : name === 'NaN' ? () => Number.NaN : name === 'Infinity' ? () => Number.POSITIVE_INFINITY : (r: Runner) => r.free(name);
  return (r, env) => {
    for (let e: Env | null = env; e; e = e.parent) {
      const slot = e.vars.get(name);
      if (slot) {
        if (!slot.ready) bail('read before declaration');
        return slot.lazy ? slotValue(slot) : slot.value;
      }
    }
    return absent(r);
  };
}

function object(e: N): Code {
  const properties = (e.properties as N[]).map((p): ((r: Runner, env: Env, self: unknown, out: Record<string, unknown>) => void) => {
    if (p.type !== 'Property') return () => refuse('spread in an object');
    const value = expression(p.value);
    if (p.computed) {
      const key = expression(p.key);
      return (r, env, self, out) => {
        const k = r.key(key(r, env, self));
        out[k] = value(r, env, self);
      };
    }
    const fixed = staticKey(p.key.value, p.key.type === 'Identifier' ? (p.key.name as string) : undefined);
    return (r, env, self, out) => {
      const k = fixed();
      out[k] = value(r, env, self);
    };
  });
  return (r, env, self) => {
    r.tick();
    const out: Record<string, unknown> = {};
    // Methods and functions get no home object or name here: code that reads either runs in the sandbox. The key is
    // never __proto__ (toKey refuses it): an assignment makes the own data property a literal defines.
    for (let i = 0; i < properties.length; i++) properties[i]!(r, env, self, out);
    return out;
  };
}

// A literal property key (a name as it is: parse.ts refused the names that reach prototypes), or (a key the tier refuses) its refusal when it runs.
function staticKey(literal: unknown, name: string | undefined): () => string {
  let key: string;
  try {
    key = name ?? toKey(literal);
  } catch (error) {
    return () => {
      throw error;
    };
  }
  return () => key;
}

function unary(e: N): Code {
  const argument = expression(e.argument);
  const operator = e.operator as string;
  if (operator === 'typeof') {
    // typeof of a name that is not defined is 'undefined'; the tier gives up on such names instead.
    return (r, env, self) => {
      r.tick();
      return typeOf(argument(r, env, self));
    };
  }
  if (operator === '!') {
    return (r, env, self) => {
      r.tick();
      return !truthy(argument(r, env, self));
    };
  }
  const why = `${operator} of a value that is not a number`;
  const negate = operator === '-';
  return (r, env, self) => {
    r.tick();
    const v = argument(r, env, self);
    if (typeof v !== 'number') return bail(why);
    return negate ? -v : v;
  };
}

function logical(e: N): Code {
  const left = expression(e.left);
  const right = expression(e.right);
  if (e.operator === '&&') {
    return (r, env, self) => {
      r.tick();
      const l = left(r, env, self);
      return truthy(l) ? right(r, env, self) : l;
    };
  }
  if (e.operator === '||') {
    return (r, env, self) => {
      r.tick();
      const l = left(r, env, self);
      return truthy(l) ? l : right(r, env, self);
    };
  }
  return (r, env, self) => {
    r.tick();
    const l = left(r, env, self);
    return l === null || l === undefined ? right(r, env, self) : l;
  };
}

type Binary = (r: Runner, a: unknown, b: unknown) => unknown;

function strictEquals(r: Runner, a: unknown, b: unknown): boolean {
  if (r.primitives && ((typeof a === 'object' && a !== null) || (typeof b === 'object' && b !== null))) bail('an object compared in the step');
  if (typeof a === 'string' && typeof b === 'string') r.spend(Math.min(a.length, b.length));
  return a === b;
}

function looseEquals(r: Runner, a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a === null || a === undefined) && (b === null || b === undefined);
  if (typeof a === typeof b && typeof a !== 'object' && typeof a !== 'function') {
    if (typeof a === 'string') r.spend(Math.min(a.length, (b as string).length));
    return a === b;
  }
  return bail('== between values of different kinds');
}

function arithmetic(op: string, fn: (a: number, b: number) => number): Binary {
  const why = `${op} of a value that is not a number`;
  return (_r, a, b) => (typeof a !== 'number' || typeof b !== 'number' ? bail(why) : fn(a, b));
}

function relation(op: string, fn: (a: number, b: number) => boolean): Binary {
  const why = `${op} of values of different kinds`;
  return (r, a, b) => {
    const x = primitive(a);
    const y = primitive(b);
    if (!((typeof x === 'number' && typeof y === 'number') || (typeof x === 'string' && typeof y === 'string'))) return bail(why);
    if (typeof x === 'string') r.spend(Math.min(x.length, (y as string).length));
    // Strings compare by the same operators (typed as numbers here).
    return fn(x as number, y as number);
  };
}

/** The binary operators on two values, where QuickJS and V8 agree by the standard (no object coercion). */
const BINARY: Record<string, Binary> = {
  '===': strictEquals,
  '!==': (r, a, b) => !strictEquals(r, a, b),
  '==': looseEquals,
  '!=': (r, a, b) => !looseEquals(r, a, b),
  '+': (r, a, b) => {
    if (typeof a === 'number' && typeof b === 'number') return a + b;
    const x = primitive(a);
    const y = primitive(b);
    if (typeof x === 'string' || typeof y === 'string') return r.concatenated(r.cap(toText(x) + toText(y)));
    if (isNumberLike(x) && isNumberLike(y)) return Number(x) + Number(y);
    return bail('+ of these values');
  },
  '-': arithmetic('-', (a, b) => a - b),
  '*': arithmetic('*', (a, b) => a * b),
  '/': arithmetic('/', (a, b) => a / b),
  '%': arithmetic('%', (a, b) => a % b),
  '<': relation('<', (a, b) => a < b),
  '>': relation('>', (a, b) => a > b),
  '<=': relation('<=', (a, b) => a <= b),
  '>=': relation('>=', (a, b) => a >= b),
};

// A member an assignment or ++ writes to: its object (a chain) and its key (computed, or a name).
function memberTarget(node: N): { base: Code; key: Code | null; name: string } {
  return { base: chain(node.object), key: node.computed ? expression(node.property) : null, name: node.computed ? '' : (node.property.name as string) };
}

function writeName(env: Env, name: string, value: unknown): void {
  const slot = find(env, name);
  // An undeclared name: sloppy code would make a global (or write a scope parameter): the sandbox decides.
  if (!slot) return refuse(`assignment to ${name}`);
  if (!slot.ready) bail('assignment before declaration');
  if (!slot.mutable) refuse('assignment to a const');
  slot.lazy = undefined;
  slot.value = value;
}

function assignment(e: N): Code {
  // As the standard orders it: the target's object and key first, then (for += and -=) its value, then the right side.
  const right = expression(e.right);
  const op = e.operator === '=' ? null : BINARY[e.operator === '+=' ? '+' : '-']!;
  const left = e.left as N;
  if (left.type === 'Identifier') {
    const name = left.name as string;
    const read = reader(name);
    return (r, env, self) => {
      r.tick();
      const value = op ? op(r, read(r, env), right(r, env, self)) : right(r, env, self);
      writeName(env, name, value);
      return value;
    };
  }
  if (left.optional) return () => refuse('optional chain as a target');
  const { base, key, name } = memberTarget(left);
  return (r, env, self) => {
    r.tick();
    const o = base(r, env, self);
    const object = o === SHORT ? undefined : o;
    const k = key ? r.key(key(r, env, self)) : name;
    const value = op ? op(r, (key ? computedMember : memberOf)(object, k), right(r, env, self)) : right(r, env, self);
    (key ? computedSet : setMember)(object, k, value);
    return value;
  };
}

function update(e: N): Code {
  // The target's object and key are evaluated once, before it is read and written back.
  const step = e.operator === '++' ? 1 : -1;
  const prefix = e.prefix as boolean;
  const argument = e.argument as N;
  const next = (old: unknown): number => (typeof old !== 'number' ? bail('++/-- of a value that is not a number') : old + step);
  if (argument.type === 'Identifier') {
    const name = argument.name as string;
    const read = reader(name);
    return (r, env) => {
      r.tick();
      const old = read(r, env);
      const value = next(old);
      writeName(env, name, value);
      return prefix ? value : old;
    };
  }
  if (argument.optional) return () => refuse('optional chain as a target');
  const { base, key, name } = memberTarget(argument);
  return (r, env, self) => {
    r.tick();
    const o = base(r, env, self);
    const object = o === SHORT ? undefined : o;
    const k = key ? r.key(key(r, env, self)) : name;
    const old = (key ? computedMember : memberOf)(object, k);
    const value = next(old);
    (key ? computedSet : setMember)(object, k, value);
    return prefix ? value : old;
  };
}

/** A member read or call, with optional chaining: SHORT when a `?.` met null or undefined (the whole chain is undefined). */
function chain(e: N): Code {
  if (e.type === 'MemberExpression') {
    const base = chain(e.object);
    const optional = e.optional === true;
    if (e.computed) {
      const key = expression(e.property);
      return (r, env, self) => {
        const b = base(r, env, self);
        if (b === SHORT) return b;
        if (optional && (b === null || b === undefined)) return SHORT;
        return computedMember(b, r.key(key(r, env, self)));
      };
    }
    const name = e.property.name as string;
    return (r, env, self) => {
      const b = base(r, env, self);
      if (b === SHORT) return b;
      if (optional && (b === null || b === undefined)) return SHORT;
      return memberOf(b, name);
    };
  }
  if (e.type === 'CallExpression') return call(e);
  // A chain in parentheses ends there: `(a?.b).c` reads c of undefined.
  if (e.type === 'ChainExpression') {
    const inner = chain(e.expression);
    return (r, env, self) => {
      const v = inner(r, env, self);
      return v === SHORT ? undefined : v;
    };
  }
  return expression(e);
}

function call(e: N): Code {
  const optional = e.optional === true;
  const args = (e.arguments as N[]).map((a) => (a.type === 'SpreadElement' ? () => refuse('spread') : expression(a)));
  const argsOf = (r: Runner, env: Env, self: unknown): unknown[] => {
    const out: unknown[] = [];
    for (let i = 0; i < args.length; i++) out.push(args[i]!(r, env, self));
    return out;
  };
  const callee = e.callee as N;
  if (callee.type === 'MemberExpression') {
    const base = chain(callee.object);
    const calleeOptional = callee.optional === true;
    const key = callee.computed ? expression(callee.property) : null;
    const name = callee.computed ? '' : (callee.property.name as string);
    return (r, env, self) => {
      const receiver = base(r, env, self);
      if (receiver === SHORT) return receiver;
      if (calleeOptional && (receiver === null || receiver === undefined)) return SHORT;
      const fn = key ? computedMember(receiver, r.key(key(r, env, self))) : memberOf(receiver, name);
      if (optional && (fn === null || fn === undefined)) return SHORT;
      if (!isCallable(fn)) return bail('call of a value that is not a function');
      return r.call(fn, receiver, argsOf(r, env, self));
    };
  }
  const target = chain(callee);
  return (r, env, self) => {
    const fn = target(r, env, self);
    if (fn === SHORT) return fn;
    if (optional && (fn === null || fn === undefined)) return SHORT;
    if (!isCallable(fn)) return bail('call of a value that is not a function');
    return r.call(fn, undefined, argsOf(r, env, self));
  };
}

// A member by a key computed from data: a refusal of the name (a prototype's, a guest object's) depends on the data there.
function computedMember(object: unknown, key: string): unknown {
  try {
    return memberOf(object, key);
  } catch (error) {
    throw ofData(error);
  }
}

function computedSet(object: unknown, key: string, value: unknown): void {
  try {
    setMember(object, key, value);
  } catch (error) {
    throw ofData(error);
  }
}

function ofData(error: unknown): unknown {
  return error instanceof Bail && error.ofCode ? new Bail(error.why) : error;
}

function declare(env: Env, name: string, mutable: boolean, ready: boolean): void {
  // Only a parameter can be there already (acorn refuses the rest): QuickJS refuses that redeclaration.
  if (env.vars.has(name)) refuse(`a declaration of the parameter ${name}`);
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

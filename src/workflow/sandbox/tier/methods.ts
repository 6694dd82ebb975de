import { toText, truthy } from './coerce.js';
import { bail, changeable, ELEMENT_UNITS, refuse, isCallable, type Running, TIER_LIMITS, TierNative } from './values.js';

// The array and string methods workflow code calls, implemented here: a callback is the interpreter's, called by
// the interpreter; a host built-in is only ever called on a primitive string or the tier's own array, with
// primitive arguments (never a callback, never a receiver code chose).

// `makes`: the method returns a value it made (a copy, a list, a text), not one the array holds; `walks`: it may walk
// the whole array (push and pop do not: a list built by push costs no more than its steps).
function arrayMethod(name: string, fn: (array: unknown[], args: unknown[], running: Running) => unknown, makes = false, walks = true): TierNative {
  return new TierNative(name, (receiver, args, running) => {
    if (!Array.isArray(receiver)) return bail(`${name} on a value that is not an array`);
    // The array is walked (or copied) at most once, and what it makes is made once; its arguments are compared, not walked.
    if (walks) running.spend(sizeOf(receiver));
    const out = fn(receiver, args, running);
    if (makes) running.spend(sizeOf(out));
    return out;
  });
}

// `walks`: the method may walk the whole text (a search, a split, a case mapping) and makes text or a list in
// proportion; charAt, slice and the like do neither (V8 slices a string without copying it).
function stringMethod(name: string, fn: (text: string, args: unknown[], running: Running) => unknown, walks = true): TierNative {
  return new TierNative(name, (receiver, args, running) => {
    if (typeof receiver !== 'string') return bail(`${name} on a value that is not a string`);
    // The text and the string arguments are walked (a search, at worst, in proportion to both), and what it makes is made once.
    let size = walks ? receiver.length : 0;
    for (const a of args) size += sizeOf(a);
    running.spend(size);
    const out = fn(receiver, args, running);
    if (walks) running.spend(sizeOf(out));
    return out;
  });
}

/** The work units of a value a built-in walks or makes: a string's characters, an array's elements (each as ELEMENT_UNITS). */
export function sizeOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  return Array.isArray(v) ? v.length * ELEMENT_UNITS : 0;
}

// An optional integer-ish argument: a number or undefined (ToIntegerOrInfinity of anything else may run guest code).
function numberArg(v: unknown): number | undefined {
  if (v === undefined || typeof v === 'number') return v;
  return bail('an argument that is not a number');
}

function stringArg(v: unknown): string {
  // A RegExp where a string is asked for throws in the guest; the tier makes no RegExp, and objects give up.
  return toText(v);
}

function callback(v: unknown, args: unknown[]): unknown {
  // A thisArg would become the callback's `this`: not modelled.
  if (args.length > 1) refuse('a thisArg');
  return isCallable(v) ? v : bail('a callback that is not a function');
}

// find / findIndex / some / every / forEach / filter / map, as the standard walks them (the length as it is at the start; holes skipped where it says so).
function iterate(kind: 'find' | 'findIndex' | 'some' | 'every' | 'forEach' | 'filter' | 'map'): TierNative {
  return arrayMethod(
    kind,
    (array, args, running) => {
      const fn = callback(args[0], args);
      const length = array.length;
      const out: unknown[] = [];
      for (let i = 0; i < length; i++) {
        running.tick();
        const present = Object.hasOwn(array, i);
        if (!present && kind !== 'find' && kind !== 'findIndex') {
          if (kind === 'map') bail('map over a hole');
          continue;
        }
        const value = array[i];
        const result = running.call(fn, undefined, [value, i, array]);
        if (kind === 'map') out.push(result);
        else if (kind === 'filter') {
          if (truthy(result)) out.push(value);
        } else if (kind === 'find' || kind === 'findIndex' || kind === 'some') {
          if (truthy(result)) return kind === 'find' ? value : kind === 'findIndex' ? i : true;
        } else if (kind === 'every' && !truthy(result)) return false;
      }
      if (kind === 'find') return undefined;
      if (kind === 'findIndex') return -1;
      if (kind === 'some') return false;
      if (kind === 'every') return true;
      if (kind === 'forEach') return undefined;
      return out;
    },
    kind === 'map' || kind === 'filter',
  );
}

function grow(array: unknown[], by: number): void {
  if (array.length + by > TIER_LIMITS.arrayLength) bail('array over the cap');
}

/** Array methods by name. */
export const ARRAY_METHODS: Record<string, TierNative> = {
  find: iterate('find'),
  findIndex: iterate('findIndex'),
  some: iterate('some'),
  every: iterate('every'),
  forEach: iterate('forEach'),
  filter: iterate('filter'),
  map: iterate('map'),
  reduce: arrayMethod('reduce', (array, args, running) => {
    if (args.length > 2) bail('reduce with more arguments');
    const fn = callback(args[0], [args[0]]);
    const length = array.length;
    let i = 0;
    let acc: unknown;
    if (args.length >= 2) acc = args[1];
    else {
      while (i < length && !Object.hasOwn(array, i)) i += 1;
      if (i >= length) bail('reduce of an empty array');
      acc = array[i++];
    }
    for (; i < length; i++) {
      running.tick();
      if (Object.hasOwn(array, i)) acc = running.call(fn, undefined, [acc, array[i], i, array]);
    }
    return acc;
  }),
  includes: arrayMethod('includes', (array, args) => array.includes(args[0], numberArg(args[1]))),
  indexOf: arrayMethod('indexOf', (array, args) => array.indexOf(args[0], numberArg(args[1]))),
  join: arrayMethod(
    'join',
    (array, args, running) => {
      const separator = args[0] === undefined ? ',' : stringArg(args[0]);
      let out = '';
      for (let i = 0; i < array.length; i++) {
        running.tick();
        const v = array[i];
        out = running.cap(out + (i > 0 ? separator : '') + (v === null || v === undefined ? '' : toText(v)));
      }
      return out;
    },
    true,
  ),
  slice: arrayMethod('slice', (array, args) => array.slice(numberArg(args[0]), numberArg(args[1])), true),
  concat: arrayMethod(
    'concat',
    (array, args) => {
      const out = array.slice();
      for (const a of args) {
        const items = Array.isArray(a) ? a : [a];
        grow(out, items.length);
        out.push(...items);
      }
      return out;
    },
    true,
  ),
  push: arrayMethod(
    'push',
    (array, args) => {
      changeable(array);
      grow(array, args.length);
      return array.push(...args);
    },
    false,
    false,
  ),
  pop: arrayMethod(
    'pop',
    (array) => {
      changeable(array);
      return array.pop();
    },
    false,
    false,
  ),
  shift: arrayMethod('shift', (array) => {
    changeable(array);
    return array.shift();
  }),
  reverse: arrayMethod('reverse', (array) => {
    changeable(array);
    return array.reverse();
  }),
};

// JavaScript's white space and line terminators (String.prototype.trim), by the standard's list.
const SPACE = new Set([9, 10, 11, 12, 13, 32, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]);
// Characters some Unicode versions counted as space (U+180E, U+0085): whether QuickJS does is left to it.
const UNSURE = new Set([0x180e, 0x85]);

function trim(text: string, start: boolean, end: boolean): string {
  let a = 0;
  let b = text.length;
  const at = (i: number) => {
    const c = text.charCodeAt(i);
    if (UNSURE.has(c)) bail('a character whose spacing differs between engines');
    return SPACE.has(c);
  };
  if (start) while (a < b && at(a)) a += 1;
  if (end) while (b > a && at(b - 1)) b -= 1;
  return text.slice(a, b);
}

// Case mapping of ASCII text only: the two engines' Unicode tables may differ elsewhere.
function ascii(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range is meant.
  return /^[\x00-\x7f]*$/.test(text) ? text : bail('case mapping of text that is not ASCII');
}

function sized(length: number): void {
  if (!(length <= TIER_LIMITS.stringChars)) bail('string over the cap');
}

/** String methods by name (on primitive strings). */
export const STRING_METHODS: Record<string, TierNative> = {
  includes: stringMethod('includes', (s, args) => s.includes(stringArg(args[0]), numberArg(args[1]))),
  startsWith: stringMethod('startsWith', (s, args) => s.startsWith(stringArg(args[0]), numberArg(args[1])), false),
  endsWith: stringMethod('endsWith', (s, args) => s.endsWith(stringArg(args[0]), numberArg(args[1])), false),
  indexOf: stringMethod('indexOf', (s, args) => s.indexOf(stringArg(args[0]), numberArg(args[1]))),
  lastIndexOf: stringMethod('lastIndexOf', (s, args) => s.lastIndexOf(stringArg(args[0]), numberArg(args[1]))),
  slice: stringMethod('slice', (s, args) => s.slice(numberArg(args[0]), numberArg(args[1])), false),
  substring: stringMethod('substring', (s, args) => s.substring(numberArg(args[0]) ?? 0, numberArg(args[1])), false),
  charAt: stringMethod('charAt', (s, args) => s.charAt(numberArg(args[0]) ?? 0), false),
  trim: stringMethod('trim', (s) => trim(s, true, true), false),
  trimStart: stringMethod('trimStart', (s) => trim(s, true, false), false),
  trimEnd: stringMethod('trimEnd', (s) => trim(s, false, true), false),
  toLowerCase: stringMethod('toLowerCase', (s) => ascii(s).toLowerCase()),
  toUpperCase: stringMethod('toUpperCase', (s) => ascii(s).toUpperCase()),
  split: stringMethod('split', (s, args) => {
    if (args[0] === undefined) return [s];
    const parts = s.split(stringArg(args[0]), numberArg(args[1]));
    if (parts.length > TIER_LIMITS.arrayLength) bail('array over the cap');
    return parts;
  }),
  repeat: stringMethod('repeat', (s, args) => {
    const n = numberArg(args[0]) ?? 0;
    if (!(n >= 0 && n < Number.POSITIVE_INFINITY)) bail('repeat count out of range');
    sized(s.length * n);
    return s.repeat(n);
  }),
  padStart: stringMethod('padStart', (s, args) => {
    sized(numberArg(args[0]) ?? 0);
    return s.padStart(numberArg(args[0]) ?? 0, args[1] === undefined ? undefined : stringArg(args[1]));
  }),
  padEnd: stringMethod('padEnd', (s, args) => {
    sized(numberArg(args[0]) ?? 0);
    return s.padEnd(numberArg(args[0]) ?? 0, args[1] === undefined ? undefined : stringArg(args[1]));
  }),
};

/** Function.prototype.call on the tier's functions. */
export const CALL = new TierNative('call', (receiver, args, running) => running.call(receiver, args[0], args.slice(1)));

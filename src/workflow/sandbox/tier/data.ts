import { jsonDepth, MAX_JSON_DEPTH } from '../json-depth.js';
import { bail, ELEMENT_UNITS, GuestThrow, isPlainObject, isStringObject, Opaque, TIER_LIMITS, textOf } from './values.js';

// Nodes a walk of data may visit before the tier gives up (a wide DAG shared many times over).
const MAX_NODES = 100_000;

/**
 * Data from the engine as the guest gets it: a copy through JSON (what the sandbox's scope goes through), so
 * nothing code does reaches the engine's objects. Bails on what is not JSON data (the sandbox reports it).
 */
export function copyData(v: unknown): unknown {
  return v === undefined ? undefined : copy(v, 0, false);
}

// What JSON.stringify then JSON.parse would make of engine data (numbers that JSON writes as null or 0 made so,
// undefined dropped from objects and null in arrays), walked by hand: the engine's data is plain, and anything
// else (a function, a class instance, a toJSON, a __proto__ key, deep nesting) gives up.
function copy(v: unknown, depth: number, inArray: boolean): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
    case 'undefined':
      return inArray ? null : undefined;
    case 'object':
      break;
    default:
      return bail('scope value that is not data');
  }
  if (v === null) return null;
  if (depth > MAX_JSON_DEPTH * 4) bail('scope nested too deep');
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copy(v[i], depth + 1, true);
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  // `'toJSON' in v` asked own and inherited at once, and V8 checked the object's shape for it: scope data comes in many
  // shapes, and the optimised copy was thrown away at each new one (--trace-deopt "wrong map", twice a process).
  if ((proto !== Object.prototype && proto !== null) || Object.hasOwn(v, 'toJSON') || (proto !== null && 'toJSON' in proto)) return bail('scope value that is not plain data');
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v as object)) {
    if (key === '__proto__') bail('the key __proto__');
    const value = copy((v as Record<string, unknown>)[key], depth + 1, false);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

// Whether v is plain data the tier made or copied, walked to MAX_JSON_DEPTH: a String object counts as its text.
// budget.chars: a lower bound of the length of its JSON (what it holds written with no escape and no indent).
function checkData(v: unknown, depth: number, budget: { nodes: number; chars: number }): void {
  if (++budget.nodes > MAX_NODES) bail('data too large to walk');
  if (typeof v === 'string') budget.chars += v.length + 2;
  else if (v === null || typeof v === 'number' || typeof v === 'boolean') budget.chars += 1;
  if (v === null || v === undefined || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return;
  if (isStringObject(v)) {
    budget.chars += textOf(v).length + 2;
    return;
  }
  const isArray = Array.isArray(v);
  if (!isArray && !isPlainObject(v)) bail('a value that is not plain data');
  if (depth + 1 > MAX_JSON_DEPTH) bail('data nested too deep');
  budget.chars += 2;
  for (const key of Object.keys(v as object)) {
    if (key === '__proto__') bail('the key __proto__');
    const item = (v as Record<string, unknown>)[key];
    // An element that is undefined is written null; a member that is undefined is not written.
    if (isArray && item === undefined) budget.chars += 4;
    else if (!isArray && item !== undefined) budget.chars += key.length + 3;
    checkData(item, depth + 1, budget);
  }
}

/**
 * common_data as the guest's answer carries it once the host parsed it: a fresh copy with JSON's semantics (a String
 * object as its text, undefined dropped from objects and null in arrays, NaN and Infinity null, -0 as 0), made by
 * hand; bails where the guest's JSON would fail (a function, a guest object, a __proto__ key, nesting past
 * MAX_JSON_DEPTH); and an upper bound of the length of its JSON.
 */
export function resultData(v: Record<string, unknown>, was?: unknown): { data: Record<string, unknown>; bound: number; least: number } {
  const budget = { nodes: 0, bytes: 0, least: 0 };
  const data = resultCopy(v, 0, false, budget) as Record<string, unknown>;
  // Code that left common_data as it got it answers with the object it came from (the engine's, never changed in
  // place): the engine then keeps the object it holds, and what it counted of it stays counted. The guest only ever
  // had a copy; the object is compared here, by the host, and never given to code.
  return { data: was !== undefined && sameData(data, was) ? (was as Record<string, unknown>) : data, bound: budget.bytes, least: budget.least };
}

// Whether `b` is the JSON data `a` (a result copy: plain, normalised) is, member for member in the same order: what
// writing either out gives the same text, and reading it back the same values (-0 is not 0 here: JSON writes it 0).
function sameData(a: unknown, b: unknown): boolean {
  if (a === null || typeof a !== 'object') return Object.is(a, b);
  if (b === null || typeof b !== 'object' || Object.getPrototypeOf(b) !== Object.getPrototypeOf(a)) return false;
  if (Array.isArray(a)) {
    if (a.length !== (b as unknown[]).length) return false;
    for (let i = 0; i < a.length; i++) if (!(i in (b as unknown[])) || !sameData(a[i], (b as unknown[])[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  const other = Object.keys(b);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (k !== other[i] || !sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

// budget.bytes: an upper bound of the length of its JSON; budget.least: a lower bound (its strings' characters, unescaped).
function resultCopy(v: unknown, depth: number, inArray: boolean, budget: { nodes: number; bytes: number; least: number }): unknown {
  if (++budget.nodes > MAX_NODES) bail('data too large to walk');
  switch (typeof v) {
    case 'string':
      // At most six characters each (\u escapes), and the quotes.
      budget.bytes += v.length * 6 + 3;
      budget.least += v.length;
      return v;
    case 'boolean':
      budget.bytes += 6;
      return v;
    case 'number':
      budget.bytes += 25;
      return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
    case 'undefined':
      budget.bytes += 5;
      return inArray ? null : undefined;
    case 'object':
      break;
    default:
      return bail('a value that is not data');
  }
  if (v === null) {
    budget.bytes += 5;
    return null;
  }
  if (isStringObject(v)) return resultCopy(textOf(v), depth, inArray, budget);
  if (depth + 1 > MAX_JSON_DEPTH) bail('data nested too deep');
  // Its brackets and the comma after it.
  budget.bytes += 3;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = resultCopy(v[i], depth + 1, true, budget);
    return out;
  }
  if (!isPlainObject(v)) return bail('a value that is not plain data');
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) {
    if (key === '__proto__') bail('the key __proto__');
    const value = resultCopy(v[key], depth + 1, false, budget);
    budget.bytes += key.length * 6 + 4;
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * JSON text of plain data as the guest's JSON.stringify gives it (undefined for undefined); bails on anything else.
 * `spend`: told the work done (the nodes walked, ELEMENT_UNITS each, and the characters written).
 */
export function jsonOf(v: unknown, space?: unknown, cap = TIER_LIMITS.stringChars, spend?: (units: number) => void): string | undefined {
  const budget = { nodes: 0, chars: 0 };
  checkData(v, 0, budget);
  // Text certainly past the cap is never written: a list of one megabyte string shared 30,000 times had V8 build half a gigabyte before it gave up.
  if (budget.chars > cap) bail('string over the cap');
  if (space !== undefined && typeof space !== 'number' && typeof space !== 'string') bail('a JSON.stringify indent that is not a number or string');
  spend?.(budget.nodes * ELEMENT_UNITS);
  const text = JSON.stringify(v, null, space as number | string | undefined);
  if (text !== undefined) spend?.(text.length);
  if (text !== undefined && text.length > cap) bail('string over the cap');
  return text;
}

/** How the guest prints a value in a log line or a template: a string as it is, anything else as JSON (undefined as 'undefined'). */
export function show(v: unknown, spend?: (units: number) => void): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return 'undefined';
  return jsonOf(v, undefined, TIER_LIMITS.stringChars, spend) ?? bail('a value JSON does not print');
}

/** JSON.parse in workflow code: a SyntaxError is thrown as an error the tier models (a catch may take it; nothing may read it). */
export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') bail('JSON.parse of a value that is not a string');
  // Nesting the engines may treat otherwise (their stacks differ) is left to the sandbox.
  if (jsonDepth(text) > MAX_JSON_DEPTH) bail('JSON nested too deep');
  try {
    return JSON.parse(text);
  } catch {
    throw new GuestThrow(new Opaque());
  }
}

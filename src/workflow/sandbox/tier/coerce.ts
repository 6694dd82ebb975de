import { bail, isStringObject, Opaque, TierFunction, TierNative, textOf } from './values.js';

/** JavaScript's truthiness on the tier's values (every object is truthy). */
export function truthy(v: unknown): boolean {
  if (v instanceof Opaque) return bail('use of a caught error');
  return Boolean(v);
}

/** typeof as the guest answers it. */
export function typeOf(v: unknown): string {
  if (v instanceof TierFunction || v instanceof TierNative) return 'function';
  if (v instanceof Opaque) return bail('use of a caught error');
  return typeof v;
}

/** A String object's text (its valueOf, unless it holds one of its own), or the value itself. */
export function primitive(v: unknown): unknown {
  if (isStringObject(v)) {
    if (Object.hasOwn(v, 'valueOf') || Object.hasOwn(v, 'toString')) bail('a String object with its own valueOf');
    return textOf(v);
  }
  return v;
}

/** Whether + reads the value as a number (when neither side is a string). */
export function isNumberLike(v: unknown): boolean {
  return typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined;
}

/** ToString of a primitive (or a String object the tier made); objects give up (their toString is the guest's). */
export function toText(v: unknown): string {
  const p = primitive(v);
  if (typeof p === 'string') return p;
  if (typeof p === 'number' || typeof p === 'boolean' || p === null || p === undefined) return String(p);
  return bail('an object turned into text');
}

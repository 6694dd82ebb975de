import { ARRAY_METHODS, CALL, STRING_METHODS } from './methods.js';
import { bail, changeable, refuse, FORBIDDEN_KEYS, isPlainObject, isStringObject, Opaque, TIER_LIMITS, TierFunction, TierNative, TierObject, textOf } from './values.js';

const INDEX = /^(?:0|[1-9]\d*)$/;

/** A value used as a property key (ToPropertyKey of a primitive); bails on keys that reach prototypes. */
export function toKey(v: unknown): string {
  let key: string;
  if (typeof v === 'string') key = v;
  else if (typeof v === 'number') key = String(v);
  else if (isStringObject(v) && !Object.hasOwn(v, 'toString') && !Object.hasOwn(v, 'valueOf')) key = textOf(v);
  else return bail('a key that is not a string or number');
  if (FORBIDDEN_KEYS.has(key)) bail(`the key ${key}`);
  return key;
}

/**
 * `value[key]` as the guest reads it, for what the tier models: own data properties of data, a string's length and
 * characters, the methods it implements itself (ARRAY_METHODS, STRING_METHODS), a guest object's members. A name
 * found on a prototype (toString, hasOwnProperty, ...) gives up (refuse: a name written in the code; compile.ts makes a
 * computed key's a plain bail); a name found nowhere is undefined.
 */
export function memberOf(value: unknown, key: string): unknown {
  if (typeof value === 'string') {
    if (key === 'length') return value.length;
    if (INDEX.test(key)) return value[Number(key)];
    if (Object.hasOwn(STRING_METHODS, key)) return STRING_METHODS[key];
    return key in String.prototype ? refuse(`string member ${key}`) : undefined;
  }
  if (Array.isArray(value)) {
    if (Object.hasOwn(value, key)) return value[key as never];
    if (Object.hasOwn(ARRAY_METHODS, key)) return ARRAY_METHODS[key];
    return key in value ? refuse(`array member ${key}`) : undefined;
  }
  if (value instanceof TierObject) return value.get(key);
  if (isPlainObject(value) || isStringObject(value)) {
    if (Object.hasOwn(value, key)) return (value as Record<string, unknown>)[key];
    return key in value ? refuse(`inherited member ${key}`) : undefined;
  }
  if ((value instanceof TierFunction || value instanceof TierNative) && key === 'call') return CALL;
  if (value instanceof Opaque) return bail('use of a caught error');
  return bail(value === null || value === undefined ? `read of ${key} of ${value}` : `member ${key} of a ${typeof value}`);
}

/** `object[key] = value` where the tier models it: data on plain objects and arrays (within their length), or a guest object's own rules. */
export function setMember(object: unknown, key: string, value: unknown): void {
  if (object instanceof TierObject) return object.set(key, value);
  if (typeof object === 'object' && object !== null) changeable(object);
  if (Array.isArray(object)) {
    if (!INDEX.test(key) || Number(key) > object.length || Number(key) >= TIER_LIMITS.arrayLength) return bail(`setting ${key} of an array`);
    object[Number(key)] = value;
    return;
  }
  if (!isPlainObject(object)) return bail('setting a member of a value that is not plain data');
  if (!Object.hasOwn(object, key) && key in object) return bail(`setting inherited member ${key}`);
  object[key] = value;
}

// Arrays the engine's hot code reads keep one map each (V8's elements kind), so the code optimised for them is not
// thrown away when a list made another way comes in (measured with --trace-deopt on the SynthDev bench). Two ways a
// list gets another map: an empty literal holds small integers until an object is put in it (its first push changes
// its map), and Array.prototype.map, once V8 has optimised its caller, makes a holey list where it made a packed one
// before (contexts, tool calls: the optimised seenBy, rawResponse and sizeOf were thrown away in runs 8-9 of every process).
const OBJECTS: never[] = [null as never];
OBJECTS.pop();

/** A new empty array that holds objects from the start (the map it keeps once objects are pushed into it). */
export function objectList<T extends object>(): T[] {
  return OBJECTS.slice();
}

/** `list.map(f)` of objects, packed (and holding objects from the start) whether or not V8 has optimised the caller. */
export function packedMap<T, U extends object>(list: readonly T[], f: (item: T, index: number) => U): U[] {
  const out = objectList<U>();
  for (let i = 0; i < list.length; i++) out.push(f(list[i]!, i));
  return out;
}

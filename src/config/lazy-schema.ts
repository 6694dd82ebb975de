/**
 * A schema built on its first use: the returned object stands for what `build` returns (its methods, its
 * shape, its `_zod` internals, nested in other schemas), but `build` runs only when one of them is first
 * touched. For the stored vocabulary's module-level schemas (event payloads, journal inputs, workflow plans
 * and runs, evaluations), which a cold `troupe run` imports with the store but never parses before its first
 * request: zod 4 builds every schema object whole (about sixty closures each, 50-70 µs in a cold process),
 * so building them at import cost a cold start a tenth of its CPU. `build` may also return a record or a
 * list of schemas (pass `[]` as `like` for a list, so `Array.isArray` holds).
 */
export function lazySchema<T extends object>(build: () => T, like: object = {}): T {
  let built: T | undefined;
  const schema = () => (built ??= build());
  return new Proxy(like as T, {
    get: (_, key) => Reflect.get(schema(), key),
    set: (_, key, value) => Reflect.set(schema(), key, value),
    has: (_, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor: (target, key) => {
      const found = Reflect.getOwnPropertyDescriptor(schema(), key);
      // A list's `length` is the stand-in's own (non-configurable) property too: reported as the list has it.
      if (found && Reflect.getOwnPropertyDescriptor(target, key)?.configurable === false) return found;
      // Reported configurable: the proxy's own (empty) target does not hold the property.
      return found ? { ...found, configurable: true } : undefined;
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}

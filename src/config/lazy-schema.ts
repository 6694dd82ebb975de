/**
 * A schema built on its first use: the returned object stands for what `build` returns (its methods, its
 * shape, its `_zod` internals, nested in other schemas), but `build` runs only when one of them is first
 * touched. For the stored vocabulary's large module-level schemas (workflow plans and runs, evaluations),
 * which a cold `troupe run` imports with the store but never parses before its first request: zod 4
 * builds every schema object whole (about sixty closures each), so building them at import cost a
 * cold start a tenth of its CPU.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = () => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(schema(), key),
    set: (_, key, value) => Reflect.set(schema(), key, value),
    has: (_, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    // Reported configurable: the proxy's own (empty) target does not hold the property.
    getOwnPropertyDescriptor: (_, key) => {
      const found = Reflect.getOwnPropertyDescriptor(schema(), key);
      return found ? { ...found, configurable: true } : undefined;
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}

import { UserError } from '../../errors.js';

type Resolvers<T> = { promise: Promise<T>; resolve: (value: T | PromiseLike<T>) => void; reject: (reason?: unknown) => void };

/**
 * `@restatedev/restate-sdk` 1.17 calls `Promise.withResolvers` (Node 22); Node 20 lacks it. Installed once,
 * before the SDK is first imported (the Restate modules are only ever loaded through `loadWorkerModules`).
 */
export function polyfillWithResolvers(): void {
  const P = Promise as unknown as { withResolvers?: <T>() => Resolvers<T> };
  if (typeof P.withResolvers === 'function') return;
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(): Resolvers<T> {
      let resolve!: Resolvers<T>['resolve'];
      let reject!: Resolvers<T>['reject'];
      const promise = new Promise<T>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      return { promise, resolve, reject };
    },
  });
}

function missing(error: unknown, pkg: string): boolean {
  const e = error as NodeJS.ErrnoException;
  return (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND') && String(e.message).includes(pkg);
}

/** Imports a module of the Restate path; a missing optional package becomes one line that says how to install it. */
export async function loadOptional<T>(pkg: string, load: () => Promise<T>): Promise<T> {
  polyfillWithResolvers();
  try {
    return await load();
  } catch (error) {
    if (missing(error, pkg)) throw new UserError(`the Restate backend needs ${pkg}, an optional dependency: npm install ${pkg}@1.17.2`, { cause: error });
    throw error;
  }
}

/** The worker side (the SDK and the handlers built on it), loaded only when a worker starts. */
export function loadWorkerModules(): Promise<typeof import('./worker.js')> {
  return loadOptional('@restatedev/restate-sdk', () => import('./worker.js'));
}

/** The ingress client (`@restatedev/restate-sdk-clients`), loaded only when `troupe serve --backend restate` starts. */
export function loadClients(): Promise<typeof import('@restatedev/restate-sdk-clients')> {
  return loadOptional('@restatedev/restate-sdk-clients', () => import('@restatedev/restate-sdk-clients'));
}

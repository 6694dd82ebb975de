import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import { loadOptional, polyfillWithResolvers } from '../../../src/serve/restate/sdk.js';
import { registerDeployment } from '../../../src/serve/restate/admin.js';

describe('loading the Restate SDK', () => {
  it('installs Promise.withResolvers where the runtime lacks it (Node 20), and leaves a native one alone', async () => {
    const P = Promise as unknown as { withResolvers?: unknown };
    const native = P.withResolvers;
    try {
      delete P.withResolvers;
      polyfillWithResolvers();
      const { promise, resolve } = (Promise as unknown as { withResolvers: <T>() => { promise: Promise<T>; resolve: (v: T) => void } }).withResolvers<number>();
      resolve(7);
      expect(await promise).toBe(7);
      const installed = P.withResolvers;
      polyfillWithResolvers();
      expect(P.withResolvers).toBe(installed);
    } finally {
      if (native) P.withResolvers = native;
    }
  });

  it('says in one line how to install a missing optional package; other failures pass through', async () => {
    const missing = Object.assign(new Error("Cannot find package '@restatedev/restate-sdk' imported from x"), { code: 'ERR_MODULE_NOT_FOUND' });
    const error = await loadOptional('@restatedev/restate-sdk', () => Promise.reject(missing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toBe('the Restate backend needs @restatedev/restate-sdk, an optional dependency: npm install @restatedev/restate-sdk@1.17.2');
    const other = new Error('boom');
    await expect(loadOptional('@restatedev/restate-sdk', () => Promise.reject(other))).rejects.toBe(other);
  });
});

describe('registering a deployment', () => {
  it('posts the URL to the admin API and returns the deployment id; a refusal or an unreachable server is one line', async () => {
    const calls: { url: string; body: string }[] = [];
    const ok = (async (url: URL, init: RequestInit) => {
      calls.push({ url: String(url), body: String(init.body) });
      return new Response(JSON.stringify({ id: 'dp_1', services: [] }), { status: 201 });
    }) as unknown as typeof fetch;
    expect(await registerDeployment('http://127.0.0.1:9070', 'http://127.0.0.1:9080/', { fetch: ok })).toBe('dp_1');
    expect(calls).toEqual([{ url: 'http://127.0.0.1:9070/deployments', body: '{"uri":"http://127.0.0.1:9080/"}' }]);
    const refused = (async () => new Response(JSON.stringify({ message: 'bad uri\nmore' }), { status: 400 })) as unknown as typeof fetch;
    await expect(registerDeployment('http://127.0.0.1:9070', 'x', { fetch: refused })).rejects.toThrow('Restate refused to register x (HTTP 400): bad uri');
    const down = (async () => {
      throw new Error('connect ECONNREFUSED');
    }) as unknown as typeof fetch;
    await expect(registerDeployment('http://127.0.0.1:9070', 'x', { fetch: down })).rejects.toThrow(/could not reach the Restate admin API at http:\/\/127.0.0.1:9070: connect ECONNREFUSED/);
  });
});

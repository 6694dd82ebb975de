// The Restate floor the session's turn is measured against: a virtual object doing one `ctx.run` and one
// `ctx.set` per call, called again and again on one key through the ingress (what one durable step of one
// keyed object costs on this restate-server). Served by an endpoint of its own, in the bench's process.
import { createServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { polyfillWithResolvers } from '../src/serve/restate/sdk.js';

/** The floor object's name at the ingress. */
export const FLOOR_OBJECT = 'troupe_bench_floor';

/** Serves the floor object on 127.0.0.1; its endpoint URL (register it) and how to stop it. */
export async function startFloor(): Promise<{ url: string; close: () => Promise<void> }> {
  polyfillWithResolvers();
  const restate = await import('@restatedev/restate-sdk');
  const floor = restate.object({
    name: FLOOR_OBJECT,
    handlers: {
      /** One durable step, one state write. */
      call: async (ctx: import('@restatedev/restate-sdk').ObjectContext, n: number) => {
        const next = await ctx.run('step', () => n + 1);
        ctx.set('n', next);
        return next;
      },
    },
  });
  const server = createServer(restate.createEndpointHandler({ services: [floor], logger: () => undefined }));
  const sessions = new Set<import('node:http2').ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sessions) s.destroy();
      }),
  };
}

import { createAdaptorServer } from '@hono/node-server';
import { createServer, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { admitStreamsInSlices, type RequestListener } from './stream-admission.js';

/** Connections the kernel queues while the server accepts others (Node's 511 drops a burst of a thousand clients). */
export const LISTEN_BACKLOG = 4096;

/** Serves a fetch handler over HTTP on a host and port (0 picks a free one); resolves with the server and the port it got. Event-stream requests are handled in slices of the loop (see admitStreamsInSlices). */
export async function listen(fetch: (request: Request) => Response | Promise<Response>, options: { hostname: string; port: number }): Promise<{ server: Server; port: number }> {
  const server = createAdaptorServer({
    fetch,
    createServer: ((serverOptions: ServerOptions, listener: RequestListener) => createServer(serverOptions, admitStreamsInSlices(listener))) as typeof createServer,
  }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port, host: options.hostname, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

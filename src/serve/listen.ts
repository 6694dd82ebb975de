import { createAdaptorServer } from '@hono/node-server';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { capConnections, defaultMaxConnections } from './connection-cap.js';
import { admitStreamsInSlices, type RequestListener } from './stream-admission.js';

/** Connections the kernel queues while the server accepts others (Node's 511 drops a burst of a thousand clients). */
export const LISTEN_BACKLOG = 4096;

/** How long a connection may take to send a request's headers, and a whole request, before it is answered 408 and closed (Node's defaults: 60 s and 300 s). */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

/** The process's open-file limits (Linux), or null elsewhere. */
export function procLimits(): string | null {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
}

/**
 * Serves a fetch handler over HTTP on a host and port (0 picks a free one); resolves with the server and the port it got. Event-stream requests are handled in slices of the loop (see admitStreamsInSlices).
 * It holds at most `maxConnections` connections (see capConnections; by default half the open-file limit).
 */
export async function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  options: { hostname: string; port: number; maxConnections?: number },
): Promise<{ server: Server; port: number; maxConnections: number }> {
  const server = createAdaptorServer({
    fetch,
    createServer: ((serverOptions: ServerOptions, listener: RequestListener) =>
      createServer(
        // Silent and trickling connections are answered 408 and closed within seconds, not a minute.
        { ...serverOptions, headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 2_000 },
        admitStreamsInSlices(listener),
      )) as typeof createServer,
  }) as Server;
  const maxConnections = options.maxConnections ?? defaultMaxConnections(procLimits());
  capConnections(server, maxConnections);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port, host: options.hostname, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port, maxConnections };
}

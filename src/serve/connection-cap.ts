import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { IdleFirst } from './idle-first.js';

/** The most connections a server holds when not told: half the process's open-file limit (the rest is for session files), within [64, 65,536]. */
export function defaultMaxConnections(procLimits: string | null): number {
  const soft = procLimits?.match(/^Max open files\s+(\S+)/m)?.[1];
  if (soft === 'unlimited') return 65_536;
  const files = Number(soft);
  if (!Number.isInteger(files) || files <= 0) return 4096;
  return Math.min(65_536, Math.max(64, Math.floor(files / 2)));
}

/** The answer to a connection over the cap when every held one is in a request: one line, then the connection closes. */
export function refusalText(max: number): string {
  const body = `this server holds ${max} connections at most and all are in use; try again, or raise TROUPE_SERVE_MAX_CONNECTIONS\n`;
  return `HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/**
 * Holds a server to at most `max` open connections. A connection over the cap closes the one idle longest
 * (connected and not in a request: a socket that never sends one, or a kept-alive one between requests) to
 * make room, or, when every held one is in a request (event streams included), is answered 503 and closed.
 * Without it a flood of idle sockets used up the process's file descriptors (24k idle connections: every
 * real client refused, session files unopenable). Returns how many it holds now (for tests and the bench).
 */
export function capConnections(server: Server, max: number): { held: () => number } {
  const pool = new IdleFirst<Socket>(max);
  const refusal = refusalText(max);

  server.on('connection', (socket: Socket) => {
    const held = pool.admit(socket, (oldest) => oldest.destroy());
    if (!held) {
      socket.end(refusal);
      socket.destroySoon?.();
      return;
    }
    socket.once('close', () => pool.closed(socket));
  });

  server.on('request', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const socket = incoming.socket;
    if (socket.destroyed) return;
    pool.began(socket);
    outgoing.once('close', () => pool.ended(socket, !socket.destroyed));
  });

  return { held: () => pool.size };
}

import * as restate from '@restatedev/restate-sdk';
import { createServer, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { loadTokenizer } from '../../memory/tokens.js';
import { defaultMaxConnections } from '../connection-cap.js';
import { procLimits } from '../listen.js';
import { indexObject } from './index-object.js';
import { learningObject } from './learning-object.js';
import { LiveSender } from './live.js';
import { ownUserOnly } from './own-user.js';
import type { WorkerRuntime } from './object-session.js';
import { sessionObject } from './session-object.js';
import { capHttp2Sessions, DEFAULT_MAX_STREAMS, http2Settings } from './session-cap.js';

/** What a worker serves with: the team (every worker of a deployment runs the same one), the model, prices, workflows, its data directory. */
export interface WorkerOptions extends Omit<WorkerRuntime, 'live'> {
  port: number;
  host: string;
  /** Restate request-identity public keys (`publickeyv1_…`): when given, only that Restate cluster may call the worker. */
  identityKeys?: string[];
  /** Connections (HTTP/2 sessions) held at once; default half the open-file limit, as `troupe serve` (TROUPE_SERVE_MAX_CONNECTIONS). */
  maxConnections?: number;
  /** Streams (invocations in flight) open at once across them; default DEFAULT_MAX_STREAMS (TROUPE_WORKER_MAX_STREAMS). */
  maxStreams?: number;
}

/** A running worker: the URL Restate calls it on, and how to stop it. */
export interface RunningWorker {
  url: string;
  /** The caps it holds to. */
  caps: { maxConnections: number; maxStreams: number };
  close(): Promise<void>;
}

const LEVELS = new Set(['warn', 'error']);

/**
 * Serves the Restate endpoint (HTTP/2) with troupe's services: the `troupe_session` object and the
 * `troupe_sessions` index. Register its URL (or a load balancer's in front of several workers)
 * with the Restate admin API.
 */
export async function startWorker(o: WorkerOptions): Promise<RunningWorker> {
  const live = new LiveSender();
  const { port: _port, host: _host, identityKeys: _keys, maxConnections: _connections, maxStreams: _streams, ...runtime } = o;
  const handler = restate.createEndpointHandler({
    services: [sessionObject({ ...runtime, live }), indexObject(), learningObject()],
    ...(o.identityKeys?.length ? { identityKeys: o.identityKeys } : {}),
    // The SDK logs every invocation at info; a worker prints only what needs a person.
    logger: (meta, message, ...rest) => {
      // Without identity keys the worker listens on loopback only (the command refuses otherwise): that warning is moot.
      if (!o.identityKeys?.length && /without validating request signatures/.test(String(message))) return;
      if (LEVELS.has(meta.level) && !meta.replaying)
        o.log(
          `restate ${meta.level}: ${
            [message, ...rest]
              .map((m) => (m instanceof Error ? m.message : String(m)))
              .join(' ')
              .split('\n')[0]
          }`,
        );
    },
  });
  const caps = { maxSessions: o.maxConnections ?? defaultMaxConnections(procLimits()), maxStreams: o.maxStreams ?? DEFAULT_MAX_STREAMS };
  // Without identity keys only this user's connections are answered (the worker listens on loopback then: every user's).
  const answer = o.identityKeys?.length ? handler : ownUserOnly(handler, process.getuid?.() ?? null, o.log);
  const server = createServer({ settings: http2Settings(caps) }, answer);
  capHttp2Sessions(server, caps);
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  // As `troupe serve` does: built in the background now, not mid-turn by the first session that counts tokens.
  void loadTokenizer();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}/`,
    caps: { maxConnections: caps.maxSessions, maxStreams: caps.maxStreams },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Restate keeps its HTTP/2 connections open; they are ended (invocations on them are retried elsewhere).
        for (const session of sessions) session.destroy();
        live.flushAll();
      }),
  };
}

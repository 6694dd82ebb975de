import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { CliArgs } from '../args.js';
import { UsageError } from '../args.js';
import { tokenProblem } from '../../serve/serve-token.js';
import { teamFor } from '../common.js';
import { printer, type CliIo } from '../io.js';
import { RestateSessions } from '../../serve/restate/ingress.js';
import { LiveHub } from '../../serve/restate/live-hub.js';
import { restateApp } from '../../serve/restate/restate-app.js';
import { loadClients } from '../../serve/restate/sdk.js';
import { loadWorkflowOrThrow } from '../../workflow/load/load-workflow.js';
import { listWorkflows } from '../../workflow/load/list.js';
import { workflowDirs } from '../../workflow/load/locate.js';

/** `troupe serve --backend restate`: the HTTP API and live page, with sessions running on Restate (workers: `troupe worker`). */
export async function runRestate(args: CliArgs, io: CliIo): Promise<number> {
  const hostname = args.host ?? '127.0.0.1';
  const token = io.env.TROUPE_SERVE_TOKEN?.trim() || null;
  const weak = tokenProblem(token, hostname);
  if (weak) throw new UsageError(weak);
  const restateUrl = (args.restateUrl ?? io.env.TROUPE_RESTATE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const pollMs = Number(io.env.TROUPE_RESTATE_POLL_MS ?? 200);
  if (!Number.isInteger(pollMs) || pollMs < 10) throw new UsageError(`TROUPE_RESTATE_POLL_MS must be a whole number >= 10, got "${io.env.TROUPE_RESTATE_POLL_MS}"`);
  const { team } = teamFor(args, io);
  const sessions = new RestateSessions(await loadClients(), restateUrl);
  const live = new LiveHub();
  const workflows = {
    load: (name: string) => loadWorkflowOrThrow(name, { cwd: io.cwd, env: io.env, team: team.loaded }),
    list: () => listWorkflows(workflowDirs(io.cwd, io.env), io.cwd).filter((w) => !w.broken),
  };
  const app = restateApp({ sessions, team: team.def.name, def: team.def, token, maxBodyBytes: 64 * 1024, pollMs, live, workflows });
  const server = serve({ fetch: app.fetch, port: args.port ?? 4810, hostname });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}/`;
  // Where workers push streaming deltas: this process, as workers reach it (TROUPE_LIVE_URL when they reach it elsewhere).
  live.url = io.env.TROUPE_LIVE_URL?.trim() || new URL('/live', hostname === '0.0.0.0' || hostname === '::' ? `http://127.0.0.1:${port}/` : url).href;
  const write = printer(io);
  write(url);
  write(
    `troupe serve · team ${team.def.name} · sessions on Restate at ${restateUrl} · ${token ? 'bearer token required' : 'no token (loopback only)'} · Ctrl+C stops (sessions keep running on Restate)`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  server.close();
  return 0;
}

import type { CliArgs } from '../args.js';
import { UsageError } from '../args.js';
import { tokenProblem } from '../../serve/serve-token.js';
import { teamFor } from '../common.js';
import { storeFor } from '../store-for.js';
import { printer, type CliIo } from '../io.js';
import { maxConnectionsSetting } from '../serve-settings.js';
import { modelFromEnv } from '../../llm/from-env.js';
import { paced, resumeModel } from '../models.js';
import { serveApp } from '../../serve/app.js';
import { listen } from '../../serve/listen.js';
import { SessionHost } from '../../serve/host.js';
import { loadWorkflowOrThrow } from '../../workflow/load/load-workflow.js';
import { listWorkflows } from '../../workflow/load/list.js';
import { workflowDirs } from '../../workflow/load/locate.js';
import { parseAllowedHosts } from '../../serve/origin-guard.js';
import { sharedSandboxPool } from '../../workflow/sandbox/pool.js';

/** `troupe serve`: many sessions in one process behind an HTTP API with SSE and the web console. Runs until stopped (Ctrl+C, SIGTERM). */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  if (args.backend === 'restate') return (await import('./serve-restate.js')).runRestate(args, io);
  const hostname = args.host ?? '127.0.0.1';
  const token = io.env.TROUPE_SERVE_TOKEN?.trim() || null;
  const weak = tokenProblem(token, hostname);
  if (weak) throw new UsageError(weak);
  const maxSessions = Number(io.env.TROUPE_SERVE_MAX_SESSIONS ?? 1000);
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new UsageError(`TROUPE_SERVE_MAX_SESSIONS must be a whole number >= 1, got "${io.env.TROUPE_SERVE_MAX_SESSIONS}"`);
  const maxConnections = maxConnectionsSetting(io.env);
  const { team, dir } = teamFor(args, io);
  const host = new SessionHost({
    store: storeFor(io),
    team,
    teamDir: dir,
    env: io.env,
    maxSessions,
    workflows: {
      load: (name) => loadWorkflowOrThrow(name, { cwd: io.cwd, env: io.env, team: team.loaded }),
      list: () => listWorkflows(workflowDirs(io.cwd, io.env), io.cwd).filter((w) => !w.broken),
    },
    allowWorkflowPaths: args.allowWorkflowPaths,
    allowNetwork: args.allowNetwork,
    sandbox: sharedSandboxPool(),
    // People watch the live page: the demo is paced as in the terminal UI (TROUPE_DEMO_PACE_MS).
    model: async (stored) => paced(await resumeModel(io.env, { demo: args.demo }, stored ? stored.events : async () => []), io.env),
  });
  const allowedHosts = parseAllowedHosts(io.env.TROUPE_SERVE_ALLOWED_HOSTS);
  const app = serveApp({ host, token, maxBodyBytes: 64 * 1024, allowedHosts });
  const { server, port, maxConnections: connections } = await listen(app.fetch, { hostname, port: args.port ?? 4810, ...(maxConnections ? { maxConnections } : {}) });
  const write = printer(io);
  write(`http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}/`);
  write(
    `troupe serve · team ${team.def.name} · ${modelFromEnv(io.env, { demo: args.demo }).label} · ${token ? 'bearer token required' : 'no token (loopback only)'} · ${args.allowWorkflowPaths ? 'workflows by name or path' : 'named workflows only'} · at most ${maxSessions} sessions and ${connections} connections · the console: open the URL above in a browser · Ctrl+C stops (sessions are saved)`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  server.close();
  await host.stopAll();
  return 0;
}

import type { CliArgs } from '../args.js';
import { UsageError } from '../args.js';
import { teamFor } from '../common.js';
import { printer, type CliIo } from '../io.js';
import { maxConnectionsSetting, maxStreamsSetting } from '../serve-settings.js';
import { modelFromEnv } from '../../llm/from-env.js';
import { loadPriceTable } from '../../usage/price-table.js';
import { registerDeployment } from '../../serve/restate/admin.js';
import { loadWorkerModules } from '../../serve/restate/sdk.js';
import { dataDirFrom } from '../../store/store.js';
import { loadWorkflowOrThrow } from '../../workflow/load/load-workflow.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * `troupe worker`: serves the Restate endpoint (the session object, the model service, the session index)
 * until stopped. Several workers behind one URL (a load balancer) serve one Restate cluster.
 */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const host = args.host ?? '127.0.0.1';
  const identityKeys = (io.env.TROUPE_RESTATE_IDENTITY_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (identityKeys.length === 0 && !LOOPBACK.has(host)) {
    throw new UsageError(`worker: listening on ${host} needs TROUPE_RESTATE_IDENTITY_KEYS (the Restate cluster's publickeyv1_… key), or listen on 127.0.0.1`);
  }
  const maxConnections = maxConnectionsSetting(io.env);
  const maxStreams = maxStreamsSetting(io.env);
  const { team } = teamFor(args, io);
  const model = modelFromEnv(io.env, { demo: args.demo });
  const { startWorker } = await loadWorkerModules();
  const write = printer(io);
  const dataDir = dataDirFrom(io.env, io.cwd);
  const worker = await startWorker({
    team,
    model,
    prices: loadPriceTable(io.env),
    env: io.env,
    dataDir,
    // Named workflows resolve as `troupe serve` resolves them: the working directory's, then the shipped ones.
    workflows: { load: (name) => loadWorkflowOrThrow(name, { cwd: io.cwd, env: io.env, team: team.loaded }) },
    allowWorkflowPaths: args.allowWorkflowPaths,
    allowNetwork: args.allowNetwork,
    port: args.port ?? 9080,
    host,
    log: write,
    identityKeys,
    ...(maxConnections !== undefined ? { maxConnections } : {}),
    ...(maxStreams !== undefined ? { maxStreams } : {}),
  });
  write(worker.url);
  const memory = team.loaded.team.memory.enabled ? 'rolling memory' : 'full-history prompts';
  write(
    `troupe worker · team ${team.def.name} · ${model.label} · ${memory} · ${args.allowWorkflowPaths ? 'workflows by name or path' : 'named workflows only'} · workspaces in ${dataDir} · at most ${worker.caps.maxConnections} connections and ${worker.caps.maxStreams} streams · Ctrl+C stops`,
  );
  try {
    if (args.register) {
      const uri = args.advertise ?? worker.url;
      const id = await registerDeployment(args.register, uri);
      write(`registered ${uri} with ${args.register}${id ? ` (deployment ${id})` : ''}`);
    } else write(`register it: curl -X POST ${'http://127.0.0.1:9070'}/deployments -H 'content-type: application/json' -d '{"uri":"${args.advertise ?? worker.url}"}'`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
  } finally {
    await worker.close();
  }
  return 0;
}

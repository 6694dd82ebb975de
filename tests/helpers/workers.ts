import { DemoModel } from '../../src/llm/demo-model.js';
import { type RunningWorker, startWorker as startWorkerHere, type WorkerOptions } from '../../src/serve/restate/worker.js';
import { loadPriceTable } from '../../src/usage/price-table.js';
import { Child } from './child.js';
import { REPO_ROOT, studio } from './team.js';

/** A `troupe worker` process (run from source with tsx), with the port it listens on and its output. */
export interface WorkerProcess {
  child: Child;
  port: number;
}

/** Starts `troupe worker --port 0` on the shipped team; resolves once it printed its URL (the first line). */
export async function startWorker(name: string, env: Record<string, string>, args: string[] = []): Promise<WorkerProcess> {
  const child = Child.start(name, process.execPath, ['--import', 'tsx', 'src/cli.tsx', 'worker', '--port', '0', '--team', REPO_ROOT, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  const url = await child.waitFor(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  return { child, port: Number(new URL(url).port) };
}

/** The model calls a worker said it made (`model <persona> started · session <id>`; a replay answered from the journal says nothing). */
export function startedTurns(worker: WorkerProcess): { persona: string; session: string }[] {
  return worker.child.lines.flatMap((l) => {
    const m = /^model (\S+) started · session (\S+)$/.exec(l);
    return m ? [{ persona: m[1]!, session: m[2]! }] : [];
  });
}

/** A worker in this process on 127.0.0.1 (any port): the studio team on the demo model, storing in `dataDir`, with `options` over that. */
export function workerHere(dataDir: string, options: Partial<WorkerOptions> = {}): Promise<RunningWorker> {
  return startWorkerHere({ team: studio(), model: new DemoModel(), prices: loadPriceTable({}), env: {}, dataDir, workflows: null, log: () => {}, port: 0, host: '127.0.0.1', ...options });
}

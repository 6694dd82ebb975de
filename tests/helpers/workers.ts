import { Child } from './child.js';
import { REPO_ROOT } from './team.js';

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

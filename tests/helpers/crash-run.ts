import { join } from 'node:path';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { Child } from './child.js';
import { REPO_ROOT } from './team.js';
import { parseEvents, type JsonEvent } from './workflow-run.js';

/** Starts `node dist/cli.js ...args` as a real process (stdout and stderr kept line by line). */
export function cliProcess(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  return Child.start(name, process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), ...args], { cwd: REPO_ROOT, env });
}

/** The events a CLI process has printed with --json so far. */
export const printedEvents = (child: Child): JsonEvent[] => parseEvents(child.lines.filter((l) => l.startsWith('{')).join('\n'));

/** Every event a session stored (what `troupe show` reads), as the --json lines show them. */
export async function storedEvents(dataDir: string, id: string): Promise<JsonEvent[]> {
  const { events } = await new LowdbStore(dataDir).read(id);
  return events.map((e) => JSON.parse(JSON.stringify(e)) as JsonEvent);
}

/**
 * A transcript that does not depend on timing: the agent messages outside parallel branches in order,
 * each fan-out's branch messages (which may finish in any order) sorted within it.
 */
export function stableTranscript(events: JsonEvent[]): string[] {
  const out: string[] = [];
  let group: string[] = [];
  for (const e of events) {
    if (e.type === 'fanout') group = [];
    if (e.type === 'agent_message') (e.branch ? group : out).push(`${e.persona}${e.branch ? `@${e.branch}` : ''}: ${e.text}`);
    if (e.type === 'joined') out.push(...group.sort());
  }
  return out;
}

import { join } from 'node:path';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { Child } from './child.js';
import { readEvents } from './serve.js';
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

/**
 * Runs a workflow on the demo model under `troupe serve --demo` (a real process, which paces the demo as
 * TROUPE_DEMO_PACE_MS says), reads its events until `killWhen` holds for them, then SIGKILLs the process.
 * Returns the session id and the events seen before the kill.
 */
export async function killServedWorkflow(env: NodeJS.ProcessEnv, workflow: string, input: string, killWhen: (events: TroupeEvent[]) => boolean): Promise<{ id: string; seen: TroupeEvent[] }> {
  const serve = cliProcess('serve', ['serve', '--demo', '--port', '0'], env);
  try {
    const base = (await serve.waitFor(/^http:\/\/127\.0\.0\.1:\d+\/$/)).trim();
    const created = await fetch(`${base}v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ workflow, input }) });
    const { id } = (await created.json()) as { id: string };
    const seen = await readEvents(await fetch(`${base}v1/sessions/${id}/events`), killWhen);
    return { id, seen };
  } finally {
    await serve.kill('SIGKILL');
  }
}

import { resolve } from 'node:path';
import type { CliArgs } from './args.js';
import { troupeCommand, type CliIo } from './io.js';
import { openTeam, type OpenTeam } from '../team/open-team.js';
import { teamDir } from '../package-root.js';
import type { WorkflowPlan } from '../workflow/run/plan.js';
import type { SessionState } from '../engine/session.js';

type SessionStatus = SessionState['status'];

/** The team a command runs: --team (resolved against the working directory) or the shipped one. */
export function teamFor(args: CliArgs, io: CliIo): { team: OpenTeam; dir: string } {
  const dir = args.team ? resolve(io.cwd, args.team) : teamDir();
  return { team: openTeam(dir, args.maxTurns !== undefined ? { maxTurns: args.maxTurns } : {}, io.env), dir };
}

/** Tells the user how to continue a stored session, or that nothing was kept (on stderr under --json, so stdout stays JSON lines). */
export function savedLine(io: CliIo, id: string, json: boolean, status: SessionStatus): void {
  const troupe = troupeCommand(io);
  const line =
    status === 'idle'
      ? 'no brief was given, so nothing was saved'
      : status === 'ended'
        ? `session ${id} saved — it has ended; read it with: ${troupe} show ${id.slice(0, 8)}`
        : `session ${id} saved — continue it with: ${troupe} resume ${id.slice(0, 8)}`;
  (json ? io.stderr : io.stdout).write(`${line}\n`);
}

/** The workflow a command names (--workflow: a name, a .json file or a workflow folder), its roles drawn from --roles and the team. */
export async function workflowFor(wanted: string, io: CliIo, team: OpenTeam, roles?: string): Promise<WorkflowPlan> {
  const { loadWorkflowOrThrow } = await import('../workflow/load/load-workflow.js');
  return loadWorkflowOrThrow(wanted, { cwd: io.cwd, env: io.env, team: team.loaded, ...(roles !== undefined ? { roles } : {}) });
}

import type { TroupeSession } from '../session/troupe-session.js';
import { listWorkspaces } from '../tools/workspace-list.js';
import { complainer, printer, troupeCommand, type CliIo } from './io.js';

/**
 * Prints where the session's agents left their files, one line per workspace, at the end of a headless run
 * (`troupe run`, `troupe resume`); nothing when no agent had a workspace. With --json it goes to stderr.
 */
export async function printWorkspaces(session: TroupeSession, io: CliIo, options: { json: boolean }): Promise<void> {
  const root = session.workspaceRoot;
  const found = root ? await listWorkspaces(root) : [];
  if (found.length === 0) return;
  const write = options.json ? complainer(io) : printer(io);
  write(`workspaces (the files the agents wrote; ${troupeCommand(io)} export ${session.id.slice(0, 8)} shows their diffs):`);
  for (const w of found) write(`  ${w.name}: ${w.dir}`);
}

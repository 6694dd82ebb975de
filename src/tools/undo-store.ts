import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ownFolder } from './own-folder.js';

// A workspace name never starts with "." (workspace.ts), so this directory can never be a workspace.
const UNDO_DIR = '.undo';

/** Where the undo log of a session's workspace lives: `<session>/workspaces/.undo/<workspace>`, outside every workspace. */
export function undoStoreOf(sessionRoot: string, workspace: string): string {
  return join(sessionRoot, 'workspaces', UNDO_DIR, workspace);
}

/** Removes the undo logs of all of a session's workspaces: the session is over, no turn of it runs again. */
export async function dropUndoLogs(sessionRoot: string): Promise<void> {
  // Only in the folders troupe made (a link there is left alone: removing through it would remove the user's files).
  const workspaces = join(sessionRoot, 'workspaces');
  if (!(await ownFolder(workspaces).catch(() => false))) return;
  await rm(join(workspaces, UNDO_DIR), { recursive: true, force: true });
}

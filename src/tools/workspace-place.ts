import { lstat, realpath } from 'node:fs/promises';
import { folderOthersCanChange } from './folder-trust.js';
import { ToolError } from './tool.js';

// bubblewrap binds the workspace by its path when a command starts, following links. Whoever can change a folder
// on that path can swap the workspace for a link to this user's files between commands (or while one starts),
// and the command then writes there: a shared data dir (TROUPE_DATA_DIR=/tmp/team) let another local user point
// an agent's commands at this user's home. The file tools already refuse a workspace that became a link.

/**
 * Throws a one-line ToolError unless `root` is still the real directory the toolset was made for, in folders only
 * this user (or root) can change: then no one else can swap it between this check and the jail's bind.
 */
export async function checkWorkspacePlace(root: string): Promise<void> {
  const info = await lstat(root).catch(() => null);
  if (!info?.isDirectory() || (await realpath(root).catch(() => null)) !== root) {
    throw new ToolError(`the workspace ${root} is no longer the directory it was (it is gone, or a link now); commands are not run through it`);
  }
  if (typeof process.getuid !== 'function' || typeof process.getgid !== 'function') return;
  const open = folderOthersCanChange(root, { uid: process.getuid(), gid: process.getgid() });
  if (open !== null) {
    throw new ToolError(
      `the workspace ${root} lies in ${open}, which another user can change (they could swap the workspace for a link while a command starts); commands run only in folders that you or root alone can write — keep TROUPE_DATA_DIR there`,
    );
  }
}

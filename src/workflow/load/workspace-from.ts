import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ConfigIssue } from '../../config/issues.js';
import { isInside } from '../../config/safe-read.js';

/**
 * The problem with a workflow's `workspace.from`, or null: it must lie (symlinks followed) inside the
 * directory troupe runs in or the folder holding the workflow's file. A workflow's own files are read only
 * inside its folder; without this, one naming `/home/me/.ssh` would have it copied into a workspace its
 * agents read. A directory that does not exist is left to the workspace's own error when it is made.
 */
export function workspaceFromIssue(from: string, options: { cwd: string; file: string; shown: string }): ConfigIssue | null {
  const real = (path: string): string | null => {
    try {
      return realpathSync(path);
    } catch {
      return null;
    }
  };
  const wanted = real(resolve(options.cwd, from));
  if (wanted === null) return null;
  const allowed = [real(options.cwd), real(dirname(options.file))].filter((d): d is string => d !== null);
  if (allowed.some((dir) => isInside(dir, wanted))) return null;
  return {
    file: options.shown,
    field: 'workspace.from',
    problem: `"${from}" is ${wanted}, outside the directory troupe runs in (${options.cwd}) and the workflow's folder`,
    fix: 'name a directory inside one of them (run troupe from the project the agents should start from)',
  };
}

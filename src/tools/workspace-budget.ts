import { lstat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { byteSetting, bytes, DEFAULT_WORKSPACE_MAX_BYTES, type ToolLimits } from './limits.js';
import { ToolError } from './tool.js';
import { walkUsage, type WorkspaceUsage } from './workspace-measure.js';

/** The setting that bounds what one workspace holds on disk. */
export const WORKSPACE_MAX_SETTING = 'TROUPE_WORKSPACE_MAX_BYTES';

/** The bound on what one workspace holds, from the environment (WORKSPACE_MAX_SETTING, in bytes); a value that is not a positive whole number is refused in one line. */
export function workspaceMaxBytes(env: Record<string, string | undefined> = process.env): number {
  return byteSetting(env, WORKSPACE_MAX_SETTING, DEFAULT_WORKSPACE_MAX_BYTES);
}

export type { WorkspaceUsage } from './workspace-measure.js';

/** The caps a workspace's total is held to. */
export type WorkspaceCaps = Pick<ToolLimits, 'maxWorkspaceBytes' | 'maxWorkspaceEntries'>;

// Each workspace's usage as last measured (or being measured) and kept up to date by the file tools.
const known = new Map<string, WorkspaceUsage | Promise<WorkspaceUsage>>();

/** What a file of `size` bytes takes on disk (whole 4 KiB blocks), as the measure counts it. */
export const onDisk = (size: number): number => Math.ceil(size / 4096) * 4096;

/** Adds up the workspace's entries' blocks, links not followed, every depth (see walkUsage), and keeps it as known. */
export async function measureWorkspace(root: string): Promise<WorkspaceUsage> {
  const measuring = walkUsage(root);
  known.set(root, measuring);
  try {
    const usage = await measuring;
    if (known.get(root) === measuring) known.set(root, usage);
    return usage;
  } catch (error) {
    if (known.get(root) === measuring) known.delete(root);
    throw error;
  }
}

/** The workspace's usage: as known (waiting for a measure under way), or measured now. */
export async function usageOf(root: string): Promise<WorkspaceUsage> {
  return (await known.get(root)) ?? (await measureWorkspace(root));
}

/**
 * A command ran in the workspace (it writes what it likes): it is measured again now, off the command's answer,
 * while the model reads it; the next check waits for that measure. What a command wrote can only be known by
 * walking: the file system's free room (statfs) before and after hides what other programs free meanwhile.
 */
export function workspaceChanged(root: string): void {
  void measureWorkspace(root).catch(() => undefined);
}

/** The line saying a workspace is over its caps, or null when it is within them. */
export function overBudget(usage: WorkspaceUsage, caps: WorkspaceCaps): string | null {
  if (usage.unmeasured !== undefined) return `the workspace holds ${usage.unmeasured}, which troupe cannot read to measure`;
  if (usage.bytes > caps.maxWorkspaceBytes) return `the workspace holds ${bytes(usage.bytes)}, over its ${bytes(caps.maxWorkspaceBytes)} limit (${WORKSPACE_MAX_SETTING})`;
  if (usage.entries > caps.maxWorkspaceEntries) return `the workspace holds ${usage.entries} files and folders, over its limit of ${caps.maxWorkspaceEntries}`;
  return null;
}

/** How many folders writing a new file at `path` (a real path inside `root`) makes: its missing ancestors below the root. */
export async function missingFolders(root: string, path: string): Promise<number> {
  let missing = 0;
  for (let dir = dirname(path); dir.length > root.length; dir = dirname(dir)) {
    if (
      await lstat(dir).then(
        () => true,
        () => false,
      )
    )
      break;
    missing += 1;
  }
  return missing;
}

/**
 * Checks that writing a file of `size` bytes where one of `replaced` bytes was (null: a new file, with the
 * `folders` it makes) keeps the workspace within its caps, and counts the write when `write` succeeds; a write
 * that would pass them is refused (ToolError) before anything is written. A model could otherwise fill the disk
 * with many files each under the per-file limit (or many folders, a path 1,000 deep a call).
 */
export async function withinBudget<T>(root: string, caps: WorkspaceCaps, change: { size: number; replaced: number | null; folders?: number }, write: () => Promise<T>): Promise<T> {
  const usage = await usageOf(root);
  // What lies below a folder troupe cannot read is not known: nothing more is written.
  if (usage.unmeasured !== undefined) throw new ToolError(`${overBudget(usage, caps)}; nothing more is written here`);
  const made = change.replaced === null ? 1 + (change.folders ?? 0) : 0;
  const freed = change.replaced === null ? 0 : onDisk(change.replaced);
  const after = { bytes: usage.bytes + onDisk(change.size) + (made - (change.replaced === null ? 1 : 0)) * 4096 - freed, entries: usage.entries + made };
  const over = overBudget(after, caps);
  if (over && after.bytes >= usage.bytes && after.entries >= usage.entries) {
    throw new ToolError(`${over.replace('holds', 'would hold')} after this write; make room first: remove or shrink files you no longer need`);
  }
  const result = await write();
  if (known.get(root) === usage) known.set(root, after);
  return result;
}

import { lstat, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { byteSetting, bytes, DEFAULT_WORKSPACE_MAX_BYTES, type ToolLimits } from './limits.js';
import { ToolError } from './tool.js';
import { MAX_WALK_DEPTH } from './walk.js';

/** The setting that bounds what one workspace holds on disk. */
export const WORKSPACE_MAX_SETTING = 'TROUPE_WORKSPACE_MAX_BYTES';

/** The bound on what one workspace holds, from the environment (WORKSPACE_MAX_SETTING, in bytes); a value that is not a positive whole number is refused in one line. */
export function workspaceMaxBytes(env: Record<string, string | undefined> = process.env): number {
  return byteSetting(env, WORKSPACE_MAX_SETTING, DEFAULT_WORKSPACE_MAX_BYTES);
}

/** What a workspace holds on disk: the blocks its entries use (a sparse file counts what it uses) and how many entries (files, folders, links), `.git` included. */
export interface WorkspaceUsage {
  bytes: number;
  entries: number;
}

/** The caps a workspace's total is held to. */
export type WorkspaceCaps = Pick<ToolLimits, 'maxWorkspaceBytes' | 'maxWorkspaceEntries'>;

// Each workspace's usage as last measured and kept up to date by the file tools; a command (which writes what it
// likes) makes it unknown, and the next check measures again.
const known = new Map<string, WorkspaceUsage>();

/** What a file of `size` bytes takes on disk (whole 4 KiB blocks), as the measure counts it. */
export const onDisk = (size: number): number => Math.ceil(size / 4096) * 4096;

/**
 * Adds up the workspace's entries' blocks, links not followed, at most MAX_WALK_DEPTH down. A plain walk by path,
 * not walk.ts's pinned one (a third of the CPU): it only counts, and a folder swapped mid-count is counted as found.
 */
export async function measureWorkspace(root: string): Promise<WorkspaceUsage> {
  const usage: WorkspaceUsage = { bytes: 0, entries: 0 };
  const count = async (dir: string, depth: number): Promise<void> => {
    const names = await readdir(dir).catch(() => [] as string[]);
    const stats = await Promise.all(names.map((name) => lstat(join(dir, name)).catch(() => null)));
    const below: string[] = [];
    names.forEach((name, i) => {
      const s = stats[i];
      if (!s) return;
      usage.entries += 1;
      usage.bytes += s.blocks * 512;
      if (s.isDirectory() && depth + 1 < MAX_WALK_DEPTH) below.push(join(dir, name));
    });
    for (const sub of below) await count(sub, depth + 1);
  };
  await count(root, 0);
  known.set(root, usage);
  return usage;
}

/** The workspace's usage: as known, or measured now. */
export async function usageOf(root: string): Promise<WorkspaceUsage> {
  return known.get(root) ?? (await measureWorkspace(root));
}

/** Forgets what a workspace holds (a command ran in it): the next check measures it again. */
export function workspaceChanged(root: string): void {
  known.delete(root);
}

/** The line saying a workspace is over its caps, or null when it is within them. */
export function overBudget(usage: WorkspaceUsage, caps: WorkspaceCaps): string | null {
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

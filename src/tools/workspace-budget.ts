import { lstat, readdir, statfs } from 'node:fs/promises';
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

// Each workspace's usage as last measured and kept up to date by the file tools, or (not `measured`) as estimated after
// a command from what the file system lost while it ran: an estimate at least what the workspace holds, measured
// again only when it would refuse something.
const known = new Map<string, { usage: WorkspaceUsage; measured: boolean }>();

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
  known.set(root, { usage, measured: true });
  return usage;
}

/**
 * The workspace's usage: as known, or measured now; an estimate (after a command) is measured again when `fits`
 * says it does not fit, so what is refused is refused on what the workspace holds.
 */
export async function usageOf(root: string, fits: (usage: WorkspaceUsage) => boolean = () => true): Promise<WorkspaceUsage> {
  const entry = known.get(root);
  if (entry && (entry.measured || fits(entry.usage))) return entry.usage;
  return measureWorkspace(root);
}

/** The room left on the file system holding `root`: free bytes and free inodes (null where it counts none, as btrfs). */
export interface FreeRoom {
  bytes: number;
  inodes: number | null;
}

/** The room left on the file system holding `root`, or null when it cannot be read. */
export async function freeRoom(root: string): Promise<FreeRoom | null> {
  try {
    const fs = await statfs(root);
    return { bytes: fs.bfree * fs.bsize, inodes: fs.files > 0 ? fs.ffree : null };
  } catch {
    return null;
  }
}

/**
 * What a workspace holds at most after a command ran in it, from what it held before (`known`) and the room its file
 * system had before and after: what the command wrote is at most what the file system lost meanwhile (blocks and
 * inodes; space freed elsewhere at the same time hides as much, and the disk fills by no more). Null (measure it
 * again) where the file system counts no inodes, as btrfs: files and folders could then grow unseen.
 */
export function usageAfterCommand(known: WorkspaceUsage, before: FreeRoom, after: FreeRoom): WorkspaceUsage | null {
  if (before.inodes === null || after.inodes === null) return null;
  return { bytes: known.bytes + Math.max(0, before.bytes - after.bytes), entries: known.entries + Math.max(0, before.inodes - after.inodes) };
}

/** A command running in a workspace, for its budget: the free room as it started, and whether anything else of this process wrote meanwhile. */
export interface RunningCommand {
  room: FreeRoom | null;
  overlapped: boolean;
}

// The commands running now, in any workspace of this process. Space another of them (or a file tool's write that
// shrinks a file) frees while a command runs would hide as much of that command's growth: the agents of one workflow
// could pass a workspace's bytes to another unseen, one command at a time. A command that overlapped anything is measured.
const running = new Set<RunningCommand>();

/** Marks every running command as overlapped: something else of this process wrote while it ran. */
function overlapRunning(): void {
  for (const command of running) command.overlapped = true;
}

/** Notes a command starting in a workspace (see commandRan): reads its file system's free room. */
export async function commandStarting(root: string): Promise<RunningCommand> {
  const command: RunningCommand = { room: null, overlapped: running.size > 0 };
  overlapRunning();
  running.add(command);
  command.room = await freeRoom(root);
  return command;
}

/**
 * Updates what a workspace holds after a command ran in it (`command`: from commandStarting) to the estimate of
 * usageAfterCommand, which the next check measures again only once it would pass the caps: a command no longer
 * walks the whole workspace (0.3 s of CPU at 20,000 entries). Without a measure to start from or an estimate, or
 * when another command or write of this process overlapped it, the usage is forgotten and the next check measures it.
 */
export async function commandRan(root: string, command: RunningCommand): Promise<void> {
  running.delete(command);
  const entry = known.get(root);
  const after = entry && command.room && !command.overlapped ? await freeRoom(root) : null;
  const usage = entry && command.room && after && !command.overlapped ? usageAfterCommand(entry.usage, command.room, after) : null;
  if (usage === null) known.delete(root);
  else if (known.get(root) === entry) known.set(root, { usage, measured: false });
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
  const made = change.replaced === null ? 1 + (change.folders ?? 0) : 0;
  const freed = change.replaced === null ? 0 : onDisk(change.replaced);
  const written = (usage: WorkspaceUsage): WorkspaceUsage => ({ bytes: usage.bytes + onDisk(change.size) + (made - (change.replaced === null ? 1 : 0)) * 4096 - freed, entries: usage.entries + made });
  const refused = (usage: WorkspaceUsage): string | null => {
    const after = written(usage);
    const over = overBudget(after, caps);
    return over && after.bytes >= usage.bytes && after.entries >= usage.entries ? over : null;
  };
  const usage = await usageOf(root, (u) => refused(u) === null);
  const over = refused(usage);
  if (over) throw new ToolError(`${over.replace('holds', 'would hold')} after this write; make room first: remove or shrink files you no longer need`);
  const entry = known.get(root);
  overlapRunning();
  const result = await write();
  if (entry && entry.usage === usage && known.get(root) === entry) known.set(root, { usage: written(usage), measured: entry.measured });
  return result;
}

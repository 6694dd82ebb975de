import { lstat, mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { UserError } from '../errors.js';
import type { Changes } from '../engine/agent-reply.js';
import { isInside } from './confine.js';
import { ownFolder } from './own-folder.js';
import { copyTree, CopyTooLargeError } from './copy-tree.js';
import { cloneRepository, removeWorktree, repositoryOf } from './git-clone.js';
import { DEFAULT_DIFF_LIMITS, diffSnapshots, type DiffLimits } from './workspace-diff.js';
import { DEFAULT_SNAPSHOT_LIMITS, takeSnapshot, type SnapshotLimits } from './workspace-snapshot.js';
import { MAX_RECORD_BYTES, WorkspaceSchema, type Workspace } from './workspace-record.js';

/** Where and how to make a workspace. */
export interface CreateWorkspaceOptions {
  /** The session directory; workspaces go in `<root>/workspaces/`. */
  root: string;
  /** The branch id: letters, digits, `.`, `_`, `-`. */
  name: string;
  /** A directory to start from (copied, or cloned from its repository); absent: an empty workspace. */
  from?: string;
  /** Make a clone of `from`'s repository, at its HEAD, when `from` is inside one (uncommitted changes are not in it); see cloneRepository. */
  git?: boolean;
  /** Folders a copy never enters besides every session's folder (`dirname(root)`): the data directory, whose sessions' transcripts are no agent's. */
  keepOut?: readonly string[];
  /** Names left out of a copy (default `.git`). */
  exclude?: readonly string[];
  /** The most bytes a copy of `from` writes (default: TROUPE_WORKSPACE_COPY_MAX_BYTES, else 2 GB; see copyTree). */
  maxCopyBytes?: number;
  snapshot?: Partial<SnapshotLimits>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

function places(root: string, name: string): { parent: string; home: string; record: string } {
  if (!NAME.test(name)) throw new UserError(`workspace name "${name}" is not usable as a directory name; use letters, digits, ".", "_" and "-"`);
  const parent = join(root, 'workspaces');
  return { parent, home: join(parent, name), record: join(parent, `${name}.json`) };
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** The session's folder for agents' files, the folder holding it (`runs/`) and its `workspaces/`: each a real directory or nothing (see ownFolder). */
async function ownFolders(root: string, parent: string): Promise<void> {
  await ownFolder(dirname(root));
  await ownFolder(root);
  await ownFolder(parent);
}

/** Makes an implementer's workspace (a git clone, a copy, or an empty directory) and records its baseline snapshot. */
export async function createWorkspace(options: CreateWorkspaceOptions): Promise<Workspace> {
  const { parent, home, record } = places(options.root, options.name);
  await ownFolders(options.root, parent);
  const from = options.from !== undefined ? await realpath(options.from).catch(() => null) : null;
  if (options.from !== undefined && (from === null || !(await stat(from)).isDirectory())) throw new UserError(`the starting directory ${options.from} does not exist or is not a directory`);
  await mkdir(parent, { recursive: true });
  // A directory without its record is a workspace whose making was cut off (a crash): it is made again.
  if ((await exists(home)) && !(await exists(record))) await rm(home, { recursive: true, force: true });
  if ((await exists(home)) || (await exists(record))) throw new UserError(`workspace "${options.name}" already exists in ${parent}; openWorkspace reopens it, removeWorkspace removes it`);
  const place = from !== null && options.git ? await repositoryOf(from) : null;
  const repo = place?.top ?? null;
  let dir = home;
  if (place !== null) {
    await cloneRepository(place.top, home).catch((error: unknown) => {
      throw new UserError(`cannot clone the git repository ${place.top} for workspace "${options.name}": ${error instanceof Error ? error.message : String(error)}`);
    });
    dir = join(home, place.prefix);
  } else if (from !== null) {
    try {
      // Never troupe's own folders: a project's default data dir is `.troupe/` inside it, and each copy took every
      // earlier session's workspaces (copies of copies: the data dir doubled a run) and their transcripts.
      const avoid = await Promise.all([parent, dirname(options.root), ...(options.keepOut ?? [])].map((dir) => realpath(dir).catch(() => dir)));
      await copyTree(from, home, { skip: options.exclude ?? ['.git'], avoid, ...(options.maxCopyBytes !== undefined ? { maxBytes: options.maxCopyBytes } : {}) });
    } catch (error) {
      // What was copied before the refused file is not left taking the disk.
      await rm(home, { recursive: true, force: true });
      if (error instanceof CopyTooLargeError) throw new CopyTooLargeError(`workspace "${options.name}": ${error.message}`);
      throw error;
    }
  } else {
    await mkdir(home);
  }
  dir = await realpath(dir);
  // The clone is of HEAD, not of the working tree checked above: a subdirectory there may be a link leading out.
  if (place !== null && !isInside(await realpath(home), dir)) {
    await rm(home, { recursive: true, force: true });
    throw new UserError(
      `workspace "${options.name}": ${place.prefix} in the clone of ${place.top} is a symbolic link leading outside the clone at its HEAD; commit ${place.prefix} as a directory, or start from another one`,
    );
  }
  const baseline = await takeSnapshot(dir, { ...DEFAULT_SNAPSHOT_LIMITS, ...options.snapshot });
  const kind = repo !== null ? 'git' : from !== null ? 'copy' : 'empty';
  const workspace: Workspace = { version: 1, name: options.name, kind, dir, home: await realpath(home), ...(repo !== null ? { repo, clone: true as const } : {}), from, baseline };
  // A new file ('wx'), never through a link left at its name (one a crash or a hand-made data dir left goes first).
  await rm(`${record}.tmp`, { force: true });
  await writeFile(`${record}.tmp`, JSON.stringify(workspace), { flag: 'wx' });
  await rename(`${record}.tmp`, record);
  return workspace;
}

/**
 * Reopens a workspace made earlier (a resumed session), or null when there is none or its directory is gone. It is
 * where its record lies, `<root>/workspaces/<name>`, whatever place the record names: a record can come from a
 * data dir that moved, or one made by hand (a cloned repository's `.troupe/`), whose `dir` must not make the
 * agent work elsewhere. The record must be a regular file, the workspace a directory (not a link), and the
 * record's dir, taken relative to its home, must stay inside it once links are followed; else one line says so.
 */
export async function openWorkspace(options: { root: string; name: string }): Promise<Workspace | null> {
  const { parent, home, record } = places(options.root, options.name);
  await ownFolders(options.root, parent);
  const info = await lstat(record).catch(() => null);
  if (info === null) return null;
  const remake = 'remove the workspace and its record and make it again';
  if (!info.isFile()) throw new UserError(`${record} is not a regular file (a link?); ${remake}`);
  // A record past the cap (a sparse file of 1.9 GB read 600 MiB and failed as an internal error) is not one troupe wrote.
  if (info.size > MAX_RECORD_BYTES) throw new UserError(`${record} is ${info.size} bytes, larger than any workspace record troupe writes; ${remake}`);
  const text = await readFile(record, 'utf8');
  let parsed: ReturnType<typeof WorkspaceSchema.safeParse>;
  try {
    parsed = WorkspaceSchema.safeParse(JSON.parse(text));
  } catch {
    throw new UserError(`${record} is not valid JSON; ${remake}`);
  }
  if (!parsed.success) throw new UserError(`${record} is not a workspace record (${parsed.error.issues[0]?.message}); ${remake}`);
  const recorded = parsed.data;
  const inner = relative(recorded.home, recorded.dir);
  if (inner === '..' || inner.startsWith(`..${sep}`) || isAbsolute(inner)) throw new UserError(`${record}: its dir ${recorded.dir} is not inside its workspace ${recorded.home}; ${remake}`);
  const homeInfo = await lstat(home).catch(() => null);
  if (homeInfo === null) return null;
  if (!homeInfo.isDirectory()) throw new UserError(`${home} is not a directory (a link?): a workspace is a directory of its own; ${remake}`);
  const realHome = await realpath(home);
  const dir = await realpath(join(realHome, inner)).catch(() => null);
  if (dir === null) return null;
  if (!isInside(realHome, dir)) throw new UserError(`${record}: its dir ${recorded.dir} leads outside the workspace ${realHome} (a link); ${remake}`);
  return { ...recorded, dir, home: realHome };
}

/** What changed in a workspace since it was made: the files (added, modified, deleted) and their unified diff, capped. */
export async function changesSince(workspace: Workspace, limits: Partial<DiffLimits & SnapshotLimits> = {}): Promise<Changes> {
  const now = await takeSnapshot(workspace.dir, { ...DEFAULT_SNAPSHOT_LIMITS, ...limits });
  return diffSnapshots(workspace.baseline, now, { ...DEFAULT_DIFF_LIMITS, ...limits });
}

/** Removes a workspace: its directory with its files (an earlier version's worktree through git, then pruned), and its record. */
export async function removeWorkspace(workspace: Workspace): Promise<void> {
  if (workspace.kind === 'git' && workspace.repo && !workspace.clone) await removeWorktree(workspace.repo, workspace.home);
  await rm(workspace.home, { recursive: true, force: true });
  const { record } = places(join(workspace.home, '..', '..'), workspace.name);
  await rm(record, { force: true });
}

import { constants, existsSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { kindOf } from './file-kind.js';
import { ToolError } from './tool.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

// Linux reaches a name relative to an open directory through /proc/self/fd/<fd>/<name> (Node has no
// openat): once a directory is open, swapping it or anything above it for a link changes nothing.
// Elsewhere the directory's path is used, and only each step's own checks (lstat, O_NOFOLLOW, the same
// device and inode once open) stand.
const BY_DESCRIPTOR = process.platform === 'linux' && existsSync('/proc/self/fd');

const code = (error: unknown): string => (error as NodeJS.ErrnoException | null)?.code ?? String(error);

/** A directory on the way to a path does not exist (and was not to be created). */
export class MissingOnTheWay extends ToolError {}

/** Called after a component was checked and before it is opened (tests swap the component there). */
export type StepHook = (step: { shown: string }) => Promise<void> | void;

/** How a walk down a path goes: make missing directories (`mkdir -p`, one checked step at a time), and a hook between steps. */
export interface WalkDownOptions {
  create?: boolean;
  between?: StepHook;
}

/** A directory inside the workspace held open by its descriptor; the names in it are reached relative to it. */
export class PinnedDir {
  private constructor(
    private readonly handle: FileHandle,
    /** Its path when it was opened (for messages and walks; operations go through `at`). */
    readonly path: string,
    /** Where it is relative to the workspace root, with `/` ("." for the root). */
    readonly shown: string,
  ) {}

  /** Opens the workspace root (a real path) as the first directory of a walk down. */
  static async root(root: string): Promise<PinnedDir> {
    const handle = await open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((error: unknown) => {
      throw new ToolError(`cannot open the workspace directory: ${code(error)}`);
    });
    return new PinnedDir(handle, root, '.');
  }

  /** The path through which `name` in this directory is reached (the directory itself without a name). */
  at(name = ''): string {
    const base = BY_DESCRIPTOR ? `/proc/self/fd/${this.handle.fd}` : this.path;
    return name === '' ? base : `${base}/${name}`;
  }

  /** How an entry of this directory is shown, relative to the workspace root. */
  showOf(name: string): string {
    return this.shown === '.' ? name : `${this.shown}/${name}`;
  }

  /** The entry's own stats (a link is not followed), or null when there is none. */
  async lstat(name: string): Promise<Stats | null> {
    return lstat(this.at(name)).catch((error: unknown) => {
      if (code(error) === 'ENOENT') return null;
      throw new ToolError(`cannot look at "${this.showOf(name)}": ${code(error)}`);
    });
  }

  /**
   * Opens the subdirectory `name`, made first when it is missing and `create` is set. It must be a
   * directory, not a link, when looked at; it is opened with O_NOFOLLOW | O_DIRECTORY and must then be
   * the same directory (device and inode), so a swap between the look and the open is refused.
   * `target` is the whole path being walked to, for messages.
   */
  async child(name: string, target: string, options: WalkDownOptions = {}): Promise<PinnedDir> {
    const shown = this.showOf(name);
    const where = shown === target ? `"${shown}"` : `"${shown}" (on the way to "${target}")`;
    let seen = await this.lstat(name);
    if (!seen && options.create) {
      await mkdir(this.at(name)).catch((error: unknown) => {
        if (code(error) !== 'EEXIST') throw new ToolError(`cannot create ${where}: ${code(error)}`);
      });
      seen = await this.lstat(name);
    }
    if (!seen) throw new MissingOnTheWay(`${where} does not exist`);
    if (seen.isSymbolicLink()) throw new ToolError(`${where} became a symbolic link; refused`);
    if (!seen.isDirectory()) throw new ToolError(`${where} is ${kindOf(seen)}, not a directory`);
    await options.between?.({ shown });
    const handle = await open(this.at(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((error: unknown) => {
      // O_NOFOLLOW | O_DIRECTORY on a link answers ENOTDIR (or ELOOP): it was swapped after the look.
      throw new ToolError(code(error) === 'ENOTDIR' || code(error) === 'ELOOP' ? `${where} changed while it was opened; refused` : `cannot open ${where}: ${code(error)}`);
    });
    const opened = await handle.stat();
    if (opened.dev !== seen.dev || opened.ino !== seen.ino) {
      await handle.close();
      throw new ToolError(`${where} changed while it was opened; refused`);
    }
    return new PinnedDir(handle, join(this.path, name), shown);
  }

  /** Lets go of the descriptor. */
  close(): Promise<void> {
    return this.handle.close();
  }
}

/** The names along a path relative to the root (`/` or the platform separator); "" and "." are the root. */
export function namesOf(rel: string): string[] {
  if (rel === '' || rel === '.') return [];
  const names = rel.split(/[\\/]/);
  for (const name of names) {
    if (name === '' || name === '.' || name === '..' || name.includes('\0')) throw new ToolError(`"${rel}" is not a plain path below the workspace`);
  }
  return names;
}

/** Opens the directory at `rel` below the workspace `root` one component at a time (see PinnedDir.child). */
export async function openDirAt(root: string, rel: string, options: WalkDownOptions & { target?: string } = {}): Promise<PinnedDir> {
  const target = options.target ?? rel;
  let dir = await PinnedDir.root(root);
  try {
    for (const name of namesOf(rel)) {
      const next = await dir.child(name, target, options);
      await dir.close();
      dir = next;
    }
  } catch (error) {
    await dir.close();
    throw error;
  }
  return dir;
}

/** Runs `use` with the open directory that holds `rel`'s last name, and that name; closes the directory after. */
export async function inParentOf<T>(root: string, rel: string, options: WalkDownOptions, use: (dir: PinnedDir, name: string) => Promise<T>): Promise<T> {
  const names = namesOf(rel);
  const name = names.pop();
  if (name === undefined) throw new ToolError('"." is the workspace directory itself, not a file');
  const dir = await openDirAt(root, names.join('/'), { ...options, target: names.length ? `${names.join('/')}/${name}` : name });
  try {
    return await use(dir, name);
  } finally {
    await dir.close();
  }
}

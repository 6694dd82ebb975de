import { constants } from 'node:fs';
import { access, lstat, realpath, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { CommandPolicy } from './command-policy.js';
import { confine, isInside } from './confine.js';
import { ToolError } from './tool.js';

async function executable(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile() && (await access(path, constants.X_OK).then(() => true));
  } catch {
    return false;
  }
}

/** A program name looked up on PATH (absolute entries outside the workspace only, so nothing the agent wrote shadows a system program). */
export async function lookUpProgram(name: string, path: string, root: string): Promise<string | null> {
  for (const dir of path.split(delimiter)) {
    if (!isAbsolute(dir) || isInside(root, resolve(dir))) continue;
    const candidate = join(dir, name);
    if (await executable(candidate)) return candidate;
  }
  return null;
}

/**
 * The program to run, as an absolute path. Under an allow-list a program is named, and found on
 * PATH; a path is accepted only when it is the very file PATH finds for that name (`/usr/bin/ls`,
 * not a `ls` of the agent's own). Under `ask` a path may point anywhere in the workspace or the system: the user sees it.
 */
export async function resolveProgram(policy: CommandPolicy, name: string, path: string, root: string): Promise<string> {
  const byName = !name.includes('/');
  const base = name.split('/').pop() ?? name;
  const found = await lookUpProgram(base, path, root);
  if (byName) {
    if (!found) throw new ToolError(`program "${name}" was not found on PATH`);
    return found;
  }
  const given = isAbsolute(name) ? name : (await confine(root, name)).real;
  if (!(await executable(given))) throw new ToolError(`"${name}" is not an executable file`);
  if (policy.mode === 'allow') {
    const same = found !== null && (await realpath(found)) === (await realpath(given));
    if (!same) throw new ToolError(`"${name}" is not the allowed program "${base}" found on PATH${found ? ` (${found})` : ''}; name the program instead of giving a path`);
  }
  return given;
}

/** The part of an argument that may be a path: the value of `--opt=value`, or of `-I/dir`; the whole argument otherwise. */
function pathPart(arg: string): string | null {
  if (!arg.startsWith('-')) return arg;
  const eq = arg.indexOf('=');
  if (eq >= 0) return arg.slice(eq + 1);
  const at = arg.search(/[/~]|\.\./);
  return at >= 0 ? arg.slice(at) : null;
}

/**
 * Refuses arguments that name files outside the workspace: `~` (never expanded, there is no shell),
 * absolute paths elsewhere, `..` escapes, and symlinks leading out. This is a first filter that gives
 * the model a clear reason for the obvious cases (`cat ~/.ssh/id_rsa`); it is not a sandbox (an
 * argument such as `sh -c '…'` passes as a relative path, and an allowed program can run anything):
 * the jail every command runs in (jail.ts) is the boundary.
 */
export async function checkArguments(args: readonly string[], root: string): Promise<void> {
  for (const arg of args) {
    const part = pathPart(arg);
    if (part === null || part.trim() === '') continue;
    if (part.startsWith('~')) throw new ToolError(`argument "${arg}": ~ is not expanded (there is no shell) and paths outside the workspace are refused; use a path inside the workspace`);
    const pathLike =
      part.includes('/') ||
      part === '..' ||
      (await lstat(resolve(root, part)).then(
        (s) => s.isSymbolicLink(),
        () => false,
      ));
    if (!pathLike) continue;
    try {
      await confine(root, part);
    } catch (error) {
      if (error instanceof ToolError) throw new ToolError(`argument "${arg}": ${error.message}`);
      throw error;
    }
  }
}

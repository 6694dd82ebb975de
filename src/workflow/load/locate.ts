import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';
import { didYouMean } from '../../config/suggest.js';
import { UserError } from '../../errors.js';

/** Where a workflow's files are: its config, its script.js (if any), and the directory its files must stay in. */
export interface WorkflowLocation {
  /** The name it was found under (file or folder name). */
  name: string;
  /** The workflow's JSON file. */
  file: string;
  /** The directory holding it (a workflow folder, or a workflows directory). */
  dir: string;
  /** script.js next to a folder workflow's config.json. */
  script: string | null;
  /** The workflows directory it was found in (sub-workflows and roles.json are looked up there too), or null for a path. */
  home: string | null;
}

/** The directories workflows are looked up in, first wins: the project's `workflows/`, then the shipped ones. */
export function workflowDirs(cwd: string, env: Record<string, string | undefined> = {}): string[] {
  const dirs = [env.TROUPE_WORKFLOWS ? resolve(cwd, env.TROUPE_WORKFLOWS) : null, join(cwd, 'workflows'), join(PACKAGE_ROOT, 'workflows')];
  const seen = new Set<string>();
  return dirs.filter((d): d is string => d !== null && !seen.has(d) && (seen.add(d), existsSync(d) && statSync(d).isDirectory()));
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The workflow stored under a name in one workflows directory (`<name>.json` or `<name>/config.json`), if any. */
function inDir(dir: string, name: string): WorkflowLocation | null {
  const folder = join(dir, name);
  if (isDir(folder) && existsSync(join(folder, 'config.json'))) {
    return { name, file: join(folder, 'config.json'), dir: folder, script: existsSync(join(folder, 'script.js')) ? join(folder, 'script.js') : null, home: dir };
  }
  const file = join(dir, `${name}.json`);
  if (existsSync(file) && name !== 'roles') return { name, file, dir, script: null, home: dir };
  return null;
}

/** Every workflow name in the given directories (earlier directories shadow later ones). */
export function workflowNames(dirs: readonly string[]): { name: string; location: WorkflowLocation }[] {
  const out = new Map<string, WorkflowLocation>();
  for (const dir of dirs) {
    for (const entry of readdirSync(dir).sort()) {
      const name = entry.endsWith('.json') ? entry.slice(0, -5) : entry;
      if (out.has(name) || name === 'roles' || name.startsWith('.')) continue;
      const found = inDir(dir, name);
      if (found) out.set(name, found);
    }
  }
  return [...out.entries()].map(([name, location]) => ({ name, location }));
}

/** Whether a workflow is named by a path (a .json file, a folder, anything with a separator or a leading dot) rather than by name. */
export function isWorkflowPath(wanted: string): boolean {
  return wanted.endsWith('.json') || wanted.includes('/') || wanted.includes('\\') || isAbsolute(wanted) || wanted.startsWith('.');
}

/** Finds a workflow by name in the workflow directories, or by path (a .json file or a workflow folder). */
export function locateWorkflow(wanted: string, options: { cwd: string; dirs: readonly string[] }): WorkflowLocation {
  if (isWorkflowPath(wanted)) {
    const path = resolve(options.cwd, wanted);
    if (!existsSync(path)) throw new UserError(`workflow ${wanted}: ${path} does not exist — give a workflow name (troupe workflows lists them), a .json file or a workflow folder`);
    // A folder's config.json named directly is the folder workflow (with its script.js).
    const folder = isDir(path) ? path : basename(path) === 'config.json' ? dirname(path) : null;
    if (folder !== null) {
      if (!existsSync(join(folder, 'config.json'))) throw new UserError(`workflow ${wanted}: the folder ${folder} has no config.json — a workflow folder holds config.json (and optionally script.js)`);
      return { name: basename(folder), file: join(folder, 'config.json'), dir: folder, script: existsSync(join(folder, 'script.js')) ? join(folder, 'script.js') : null, home: null };
    }
    if (extname(path) !== '.json') throw new UserError(`workflow ${wanted}: expected a .json file or a workflow folder`);
    return { name: basename(path, '.json'), file: path, dir: dirname(path), script: null, home: null };
  }
  for (const dir of options.dirs) {
    const found = inDir(dir, wanted);
    if (found) return found;
  }
  const known = workflowNames(options.dirs).map((w) => w.name);
  const near = didYouMean(wanted, known);
  throw new UserError(`no workflow "${wanted}"${near ? ` — did you mean ${near}?` : ''} (known: ${known.join(', ') || 'none'}; troupe workflows lists them)`);
}

/** A sub-workflow by name: next to its parent first, then in the workflow directories. */
export function locateSubWorkflow(name: string, parent: WorkflowLocation, dirs: readonly string[]): WorkflowLocation | null {
  const near = [parent.home, parent.home === null ? parent.dir : null, dirname(parent.dir)].filter((d): d is string => d !== null && isDir(d));
  for (const dir of [...near, ...dirs]) {
    const found = inDir(dir, name);
    if (found) return found;
  }
  return null;
}

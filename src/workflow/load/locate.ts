import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';
import { didYouMean } from '../../config/suggest.js';
import { readConfigText } from '../../config/safe-read.js';
import { parseMode } from './role-mode.js';
import { UserError } from '../../errors.js';

/** Where a workflow's files are: its config, its script.js (if any), and the directory its files must stay in. */
export interface WorkflowLocation {
  /** The name it was found under (file or folder name, or the workflow_name of an entry of a workflows array). */
  name: string;
  /** The workflow's JSON file. */
  file: string;
  /** The directory holding it (a workflow folder, or a workflows directory). */
  dir: string;
  /** Its script.js: `<folder>/script.js` next to config.json, or SynthDev's `<name>/script.js` next to `<name>.json`. */
  script: string | null;
  /** The folder holding script.js (it must be inside `home`, as a workflow folder). */
  scriptDir?: string;
  /** The workflows directory it was found in (sub-workflows and roles.json are looked up there too), or null for a path. */
  home: string | null;
  /** The workflow's index when the file holds an array of workflows (seed 000's workflows.json). */
  entry?: number;
  /** A workflow made in memory, not read from a file (a role chat, `role:<id>`). */
  inline?: Record<string, unknown>;
}

/** The directories workflows are looked up in, first wins: the project's `workflows/`, then the shipped ones. */
export function workflowDirs(cwd: string, env: Record<string, string | undefined> = {}): string[] {
  const dirs = [env.TROUPE_WORKFLOWS ? resolve(cwd, env.TROUPE_WORKFLOWS) : null, join(cwd, 'workflows'), join(PACKAGE_ROOT, 'workflows')];
  const seen = new Set<string>();
  return dirs.filter((d): d is string => {
    if (d === null || seen.has(d)) return false;
    seen.add(d);
    return existsSync(d) && statSync(d).isDirectory();
  });
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** A `<name>.json` file's location, with SynthDev's `<name>/script.js` beside it when there is one. */
function jsonFile(file: string, home: string | null, name = basename(file, '.json')): WorkflowLocation {
  const folder = join(dirname(file), basename(file, '.json'));
  const script = join(folder, 'script.js');
  const found = isDir(folder) && existsSync(script);
  return { name, file, dir: dirname(file), script: found ? script : null, ...(found ? { scriptDir: folder } : {}), home };
}

/** The workflow stored under a file or folder name in one workflows directory (`<name>/config.json` or `<name>.json`), if any. */
function inDir(dir: string, name: string): WorkflowLocation | null {
  const folder = join(dir, name);
  if (isDir(folder) && existsSync(join(folder, 'config.json'))) {
    return { name, file: join(folder, 'config.json'), dir: folder, script: existsSync(join(folder, 'script.js')) ? join(folder, 'script.js') : null, home: dir };
  }
  const file = join(dir, `${name}.json`);
  if (existsSync(file) && name !== 'roles' && !isDir(file) && !isArrayFile(dir, file)) return jsonFile(file, dir);
  return null;
}

/** Whether a .json file holds a list of workflows (its workflows are found by their workflow_name, not its file name). */
function isArrayFile(dir: string, file: string): boolean {
  try {
    return readConfigText(dir, file).trimStart().startsWith('[');
  } catch {
    return false;
  }
}

/**
 * The workflow_name each `.json` file of a directory declares (SynthDev registers workflows by it), and
 * each entry of an array file (seed 000's workflows.json). Files that cannot be read are left out: loading
 * them by file name reports why.
 */
export function declaredWorkflows(dir: string, home: string | null = dir): WorkflowLocation[] {
  const out: WorkflowLocation[] = [];
  for (const entry of readdirSync(dir).sort()) {
    if (!entry.endsWith('.json') || entry === 'roles.json' || entry.startsWith('.')) continue;
    const file = join(dir, entry);
    let value: unknown;
    try {
      value = JSON.parse(readConfigText(dir, file));
    } catch {
      continue;
    }
    const named = (v: unknown): string | null =>
      v !== null && typeof v === 'object' && typeof (v as { workflow_name?: unknown }).workflow_name === 'string' ? (v as { workflow_name: string }).workflow_name : null;
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        const name = named(v);
        if (name) out.push({ name, file, dir, script: null, home, entry: i });
      });
      continue;
    }
    const name = named(value);
    if (name) out.push(jsonFile(file, home, name));
  }
  return out;
}

/** Every workflow name in the given directories (earlier directories shadow later ones): file and folder names, then declared workflow_names. */
export function workflowNames(dirs: readonly string[]): { name: string; location: WorkflowLocation }[] {
  const out = new Map<string, WorkflowLocation>();
  const files = new Set<string>();
  for (const dir of dirs) {
    for (const entry of readdirSync(dir).sort()) {
      const name = entry.endsWith('.json') ? entry.slice(0, -5) : entry;
      if (out.has(name) || name === 'roles' || name.startsWith('.')) continue;
      const found = inDir(dir, name);
      if (found) {
        out.set(name, found);
        files.add(found.file);
      }
    }
    // A workflow listed under its file name is not listed again under its workflow_name.
    for (const found of declaredWorkflows(dir)) if (!out.has(found.name) && (found.entry !== undefined || !files.has(found.file))) out.set(found.name, found);
  }
  return [...out.entries()].map(([name, location]) => ({ name, location }));
}

/**
 * Whether a workflow is named by a path (a .json file, a folder, anything with a separator or a leading dot)
 * rather than by name; what follows seed 003's `workflow:` prefix is what is judged, as it is what is loaded
 * (`workflow:..` is the folder above).
 */
export function isWorkflowPath(given: string): boolean {
  const mode = parseMode(given);
  const wanted = 'workflow' in mode ? mode.workflow : given;
  return wanted.endsWith('.json') || wanted.includes('/') || wanted.includes('\\') || isAbsolute(wanted) || wanted.startsWith('.');
}

/** A workflow in a directory by name: its file or folder name first, then a declared workflow_name. */
function byName(dir: string, name: string): WorkflowLocation | null {
  return inDir(dir, name) ?? declaredWorkflows(dir).find((w) => w.name === name) ?? null;
}

/** Finds a workflow by name in the workflow directories, or by path (a .json file, `file.json#name` for one of an array, or a workflow folder). */
export function locateWorkflow(wanted: string, options: { cwd: string; dirs: readonly string[] }): WorkflowLocation {
  if (isWorkflowPath(wanted)) {
    const hash = /^(.*\.json)#([A-Za-z][A-Za-z0-9_-]*)$/.exec(wanted);
    const path = resolve(options.cwd, hash ? hash[1]! : wanted);
    if (!existsSync(path)) throw new UserError(`workflow ${wanted}: ${path} does not exist — give a workflow name (troupe workflows lists them), a .json file or a workflow folder`);
    // A folder's config.json named directly is the folder workflow (with its script.js).
    const folder = isDir(path) ? path : basename(path) === 'config.json' ? dirname(path) : null;
    if (folder !== null) {
      if (!existsSync(join(folder, 'config.json'))) throw new UserError(`workflow ${wanted}: the folder ${folder} has no config.json — a workflow folder holds config.json (and optionally script.js)`);
      return { name: basename(folder), file: join(folder, 'config.json'), dir: folder, script: existsSync(join(folder, 'script.js')) ? join(folder, 'script.js') : null, home: null };
    }
    if (extname(path) !== '.json') throw new UserError(`workflow ${wanted}: expected a .json file or a workflow folder`);
    if (hash) {
      const entry = declaredWorkflows(dirname(path), null).find((w) => w.file === path && w.name === hash[2]);
      if (!entry || entry.entry === undefined) throw new UserError(`workflow ${wanted}: ${path} holds no workflow "${hash[2]}" in a list of workflows`);
      return entry;
    }
    return jsonFile(path, null);
  }
  for (const dir of options.dirs) {
    const found = byName(dir, wanted);
    if (found) return found;
  }
  const known = workflowNames(options.dirs).map((w) => w.name);
  const near = didYouMean(wanted, known);
  throw new UserError(`no workflow "${wanted}"${near ? ` — did you mean ${near}?` : ''} (known: ${known.join(', ') || 'none'}; troupe workflows lists them)`);
}

/** A sub-workflow by name: in its parent's own file (a workflows array), next to its parent, then in the workflow directories. */
export function locateSubWorkflow(name: string, parent: WorkflowLocation, dirs: readonly string[]): WorkflowLocation | null {
  if (parent.entry !== undefined) {
    const sibling = declaredWorkflows(parent.dir, parent.home).find((w) => w.file === parent.file && w.name === name);
    if (sibling) return sibling;
  }
  const near = [parent.home, parent.home === null ? parent.dir : null, dirname(parent.dir)].filter((d): d is string => d !== null && isDir(d));
  for (const dir of [...near, ...dirs]) {
    const found = byName(dir, name);
    if (found) return found;
  }
  return null;
}

/** The location a `troupe validate` run loads a listed workflow by (a path; `file.json#name` for an entry of a workflows array). */
export function locationPath(location: WorkflowLocation): string {
  return location.entry !== undefined ? `${location.file}#${location.name}` : location.file;
}

import { lstatSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { ConfigIssue } from '../../config/issues.js';
import { parseConfigJson } from '../../config/config-json.js';
import { readConfigText, UnreadableFile } from '../../config/safe-read.js';

/** A role as written in a file (validated only when an agent uses it), with the file it came from. */
export interface RawRole {
  role: Record<string, unknown>;
  file: string;
}

// A roles tree is a config folder: past these it is not one (or is an attack).
const MAX_FILES = 500;
const MAX_DEPTH = 8;

/** The .json files under a directory, by their path relative to it, sorted (SynthDev's order); links and other odd entries are skipped. */
function jsonFilesUnder(root: string, issues: ConfigIssue[], shown: string): string[] {
  const out: string[] = [];
  let unreadable: string | null = null;
  const walk = (dir: string, depth: number): void => {
    if (depth > MAX_DEPTH || out.length > MAX_FILES || unreadable !== null) return;
    try {
      for (const entry of readdirSync(dir).sort()) {
        if (entry.startsWith('.')) continue;
        const path = join(dir, entry);
        const kind = lstatSync(path);
        if (kind.isDirectory()) walk(path, depth + 1);
        else if (kind.isFile() && entry.toLowerCase().endsWith('.json')) out.push(relative(root, path));
      }
    } catch (error) {
      // A folder troupe may not read (`--roles /` meets /proc's): the tree is not a roles folder; say so, not crash (exit 70).
      unreadable = `cannot read ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
  };
  walk(root, 0);
  if (unreadable !== null) {
    issues.push({ file: shown, field: '', problem: unreadable, fix: 'point troupe at the roles folder itself (config/roles)' });
    return [];
  }
  if (out.length > MAX_FILES) issues.push({ file: shown, field: '', problem: `holds more than ${MAX_FILES} .json files`, fix: 'point troupe at the roles folder itself (config/roles)' });
  return out.slice(0, MAX_FILES).sort();
}

/** SynthDev's group of a roles file: `name.group.json` is in `group`, `name.json` is global. */
export function groupOfFile(file: string): string {
  const parts = file.replace(/\.json$/i, '').split('.');
  return parts.length >= 2 ? parts[parts.length - 1]! : 'global';
}

function objectOf(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** One roles file read as a map of role objects (each validated when used); problems become issues. */
export function readRawRolesFile(root: string, path: string, shown: string, issues: ConfigIssue[], optional = false): Record<string, Record<string, unknown>> | null {
  let text: string;
  try {
    text = readConfigText(root, path);
  } catch (error) {
    if (!(error instanceof UnreadableFile)) throw error;
    if (optional && /does not exist/.test(error.problem)) return null;
    issues.push({ file: shown, field: '', problem: error.problem, fix: error.fix });
    return null;
  }
  const raw = parseConfigJson(text, shown, issues);
  if (!raw) return null;
  const map = objectOf(raw.value);
  if (!map) {
    issues.push({ file: shown, field: '', problem: 'is not a map of roles', fix: 'write { "role_id": { "systemMessage": "...", ... } }' });
    return null;
  }
  const out: Record<string, Record<string, unknown>> = {};
  for (const [id, role] of Object.entries(map)) {
    const object = objectOf(role);
    if (!object) issues.push({ file: shown, field: id, problem: 'is not a role object', fix: 'write { "systemMessage": "...", ... }' });
    else if (id !== '__proto__') out[id] = object;
  }
  return out;
}

/**
 * SynthDev's roles folder (`config/roles/**\/*.json`, each file a map of roles), merged as SynthDev merges
 * it: `roles.json` at the top first (global), then every file in path order; a file `name.group.json`
 * puts its roles in `group`, reachable as `group.role`, and by their own name too unless that name is a
 * global role's or is in two groups; a later file's role replaces an earlier one of the same key.
 */
export function readRolesTree(root: string, shownRoot: string, issues: ConfigIssue[]): Map<string, RawRole> {
  const roles = new Map<string, RawRole>();
  const groupOf = new Map<string, string>();
  const files = jsonFilesUnder(root, issues, shownRoot);
  const ordered = [...files.filter((f) => f === 'roles.json'), ...files.filter((f) => f !== 'roles.json')];
  for (const file of ordered) {
    const shown = `${shownRoot}${sep}${file}`;
    const map = readRawRolesFile(root, file, shown, issues);
    if (!map) continue;
    const group = file === 'roles.json' ? 'global' : groupOfFile(file.split(sep).pop()!);
    for (const [name, role] of Object.entries(map)) {
      const found = { role, file: shown };
      roles.set(group === 'global' ? name : `${group}.${name}`, found);
      if (group === 'global') {
        roles.set(name, found);
        groupOf.set(name, 'global');
        continue;
      }
      const holder = groupOf.get(name);
      if (holder === 'global') continue;
      if (holder !== undefined && holder !== group) {
        // The same name in two groups: only `group.name` reaches either.
        roles.delete(name);
        groupOf.set(name, '');
        continue;
      }
      if (holder === '') continue;
      roles.set(name, found);
      groupOf.set(name, group);
    }
  }
  return roles;
}

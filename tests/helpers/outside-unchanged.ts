// Vitest global setup: what the whole suite must leave as it found it. Tests run agents that attack their
// workspace (issue 19); each attack test checks its own outside directory, and this checks the places no
// test may touch at all: the repository's own files and the user's git, ssh and shell configuration.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..', '..');
// Build output and caches change by design; `.tmp-*` directories are made and removed by tests as they run.
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage', '.troupe']);
// .config/troupe: troupe's own seal key, which the suite makes under a configuration home of its own.
const HOME_FILES = ['.gitconfig', '.config/git', '.config/troupe', '.ssh', '.bashrc', '.profile', '.npmrc'];

function stamp(path: string): string {
  const s = lstatSync(path);
  if (s.isSymbolicLink()) return `link -> ${readlinkSync(path)}`;
  if (s.isDirectory()) return `dir ${s.mode}`;
  return `${s.mode} ${s.size} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
}

function walk(dir: string, root: string, out: Map<string, string>): void {
  for (const name of readdirSync(dir).sort()) {
    if (SKIP.has(name) || name.startsWith('.tmp-')) continue;
    const full = join(dir, name);
    out.set(relative(root, full), stamp(full));
    if (lstatSync(full).isDirectory()) walk(full, root, out);
  }
}

function fingerprint(): Map<string, string> {
  const out = new Map<string, string>();
  walk(REPO, REPO, out);
  for (const f of HOME_FILES) {
    const path = join(homedir(), f);
    out.set(`~/${f}`, existsSync(path) ? stamp(path) : 'absent');
    if (existsSync(path) && lstatSync(path).isDirectory()) walk(path, homedir(), out);
  }
  return out;
}

/** Records the fingerprint before the suite; after it, fails the run naming every path that changed. */
export default function setup(): () => void {
  const before = fingerprint();
  return () => {
    const after = fingerprint();
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
    if (changed.length === 0) return;
    // Vitest reports an error thrown here but still exits 0: the exit code is set too, so the run fails.
    process.exitCode = 1;
    throw new Error(`the suite changed ${changed.length} path(s) outside every workspace: ${changed.slice(0, 20).join(', ')}`);
  };
}

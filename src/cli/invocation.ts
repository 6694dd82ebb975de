import { realpathSync, statSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, relative, sep } from 'node:path';
import { COMMAND_SPECS } from './command-specs.js';

/** How this process was started: the script node ran (process.argv[1]), its environment and directory. */
export interface Started {
  script: string | undefined;
  env: Record<string, string | undefined>;
  cwd: string;
}

/**
 * The command the user types to run troupe again, as they started it: `troupe` when that name on the PATH is
 * this CLI, `npm start --` under `npm start` in the clone, `npx troupe` under npx, else `node <the script>`.
 * Hints ("continue it with: … resume 3f2a9c1d") name it: before `npm link`, `troupe` is not a command.
 */
export function invocationOf(started: Started, onPath: (name: string) => string | undefined = (name) => findOnPath(name, started.env)): string {
  const { script, env, cwd } = started;
  if (env.npm_lifecycle_event === 'start' && env.npm_package_name === 'troupe') return 'npm start --';
  if (script === undefined) return 'troupe';
  // npm's variables reach every process below it (`npx vitest` running the CLI): npx started this one only when
  // it ran the bin link it made (…/_npx/…/node_modules/.bin/troupe).
  if (env.npm_command === 'exec' && basename(script) === 'troupe') return 'npx troupe';
  const found = onPath('troupe');
  if (found !== undefined && sameFile(found, script)) return 'troupe';
  const shown = script.startsWith(cwd + sep) ? relative(cwd, script) : script;
  return `node ${/^[\w./@+-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`}`;
}

/** The first executable file of this name in the PATH's directories (absolute ones only, as a shell looks). */
function findOnPath(name: string, env: Record<string, string | undefined>): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const path = join(dir, name);
    try {
      if (statSync(path).isFile()) return path;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

// `troupe` then one of its commands (or its usage's `[command]`, `--help`): a hint, as the kernel, the store and the
// session word it below the CLI, which does not know how the user started troupe.
const HINT = new RegExp(`\\btroupe (?=(?:${[...COMMAND_SPECS.map((c) => c.name).filter((n) => n !== ''), '\\[command\\]', '--help'].join('|')})(?![\\w-]))`, 'g');

/**
 * `text` with every hint that names a troupe command (`continue it with troupe resume 3f2a9c1d`) naming it as the
 * user starts troupe (`node dist/cli.js resume 3f2a9c1d`): the one place the CLI shows the hints worded below it.
 */
export function namingCommand(text: string, troupe: string): string {
  return troupe === 'troupe' ? text : text.replace(HINT, `${troupe} `);
}

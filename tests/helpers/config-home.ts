import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

const PREFIX = 'troupe-test-config-';

/**
 * A configuration home of the suite's own (XDG_CONFIG_HOME for every test process): troupe keeps this user's
 * seal key under it (src/session/source-seal.ts), and a test run must not make one in the real home.
 */
export function testConfigHome(): string {
  return mkdtempSync(join(tmpdir(), PREFIX));
}

/** Whether a path is a configuration home testConfigHome made (a directory of its name, in the temp dir). */
export function isTestConfigHome(path: string | undefined): path is string {
  return path !== undefined && dirname(path) === tmpdir() && basename(path).startsWith(PREFIX);
}

/** Global setup: once the suite is done, its configuration home (the config's XDG_CONFIG_HOME) is removed. */
export default function setup(project: { config: { env?: Record<string, unknown> } }): () => void {
  const home = project.config.env?.XDG_CONFIG_HOME;
  return () => {
    if (typeof home === 'string' && isTestConfigHome(home)) rmSync(home, { recursive: true, force: true });
  };
}

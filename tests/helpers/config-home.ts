import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A configuration home of the suite's own (XDG_CONFIG_HOME for every test process): troupe keeps this user's
 * seal key under it (src/session/source-seal.ts), and a test run must not make one in the real home.
 */
export function testConfigHome(): string {
  return mkdtempSync(join(tmpdir(), 'troupe-test-config-'));
}

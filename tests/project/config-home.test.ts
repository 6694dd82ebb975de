import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import setup, { isTestConfigHome, testConfigHome } from '../helpers/config-home.js';
import { REPO_ROOT } from '../helpers/team.js';

describe("the suite's configuration home", () => {
  it('is removed once the suite is done (it was left in the temp dir after every run)', () => {
    const home = testConfigHome();
    mkdirSync(join(home, 'troupe'));
    const teardown = setup({ config: { env: { XDG_CONFIG_HOME: home } } });
    expect(existsSync(home)).toBe(true);
    teardown();
    expect(existsSync(home)).toBe(false);
  });

  it('the teardown removes nothing testConfigHome did not make', () => {
    const other = mkdtempSync(join(tmpdir(), 'not-a-config-home-'));
    setup({ config: { env: { XDG_CONFIG_HOME: other } } })();
    setup({ config: { env: { XDG_CONFIG_HOME: join(other, 'troupe-test-config-x') } } })();
    setup({ config: {} })();
    expect(existsSync(other)).toBe(true);
    expect([isTestConfigHome(other), isTestConfigHome(process.env.XDG_CONFIG_HOME)]).toEqual([false, true]);
    rmSync(other, { recursive: true });
  });

  // Read as text: loading a configuration would make a configuration home of its own.
  it('both configurations run the teardown', () => {
    for (const file of ['vitest.config.ts', 'vitest.restate.config.ts']) expect(readFileSync(join(REPO_ROOT, file), 'utf8'), file).toMatch(/globalSetup: \[[^\]]*'tests\/helpers\/config-home\.ts'/);
  });
});

import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { testConfigHome } from './tests/helpers/config-home.js';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    // The Restate tests run a real restate-server and worker processes: `npm run test:restate` (vitest.restate.config.ts).
    exclude: ['**/node_modules/**', 'tests/serve/restate-*.test.ts'],
    setupFiles: ['tests/helpers/console-guard.ts'],
    // The repository and the user's git/ssh/shell configuration are the same after the whole suite (issue 19).
    // The suite's configuration home is removed after it (tests/helpers/config-home.ts).
    globalSetup: ['tests/helpers/outside-unchanged.ts', 'tests/helpers/config-home.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Vitest leaves a core free by default, which on a 2-core machine runs every file one after another;
    // most of the suite waits on subprocesses, servers and terminals, so every core is used.
    maxWorkers: Math.max(2, availableParallelism()),
    // Ink renders only the final frame when it thinks it runs in CI (CI=true, as on the CI machine);
    // the UI tests check what a person at a terminal sees, so they run as outside CI.
    // The seal key lives in the configuration home: the suite's own, never the user's.
    env: { CI: 'false', XDG_CONFIG_HOME: testConfigHome() },
  },
});

import { defineConfig } from 'vitest/config';
import { testConfigHome } from './tests/helpers/config-home.js';

// The Restate tests (`npm run test:restate`): a real restate-server from node_modules and troupe worker
// processes, all on 127.0.0.1; one file at a time, since each starts its own cluster.
export default defineConfig({
  test: {
    include: ['tests/serve/restate-*.test.ts'],
    setupFiles: ['tests/helpers/console-guard.ts'],
    globalSetup: ['tests/helpers/config-home.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    // The seal key lives in the configuration home: the suite's own, never the user's.
    env: { XDG_CONFIG_HOME: testConfigHome() },
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    // The Restate tests run a real restate-server and worker processes: `npm run test:restate` (vitest.restate.config.ts).
    exclude: ['**/node_modules/**', 'tests/serve/restate-*.test.ts'],
    setupFiles: ['tests/helpers/console-guard.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Ink renders only the final frame when it thinks it runs in CI (CI=true, as on the CI machine);
    // the UI tests check what a person at a terminal sees, so they run as outside CI.
    env: { CI: 'false' },
  },
});

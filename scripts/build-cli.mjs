// Bundles the CLI entry (dist/cli.js) for a cold start: run by `npm run build` after tsc, it replaces tsc's
// dist/cli.js with an esbuild bundle split at every dynamic import (dist/cli-*.js chunks), so a command loads
// only what it imports statically, in a few files instead of ~250 modules. zod and the other small pure-JS
// packages on the start path are bundled (zod without its 48 locale modules, which nothing uses: its English
// messages are the ones configured); the rest stays in node_modules. The library (dist/index.js, dist/testing.js)
// and every other dist/ module stay tsc's, one file per source file.
// A single bundle of everything, without splitting, was measured slower: it compiled the UI, serve and
// workflow code before the first request.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const BUNDLED = new Set(['zod', 'eventemitter3', 'fastest-levenshtein', 'lowdb', 'steno']);

for (const f of readdirSync(dist)) if (/^cli-.*\.js(\.map)?$/.test(f)) rmSync(join(dist, f));
const result = await build({
  entryPoints: { cli: join(root, 'src', 'cli.tsx') },
  outdir: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Chunks sit beside cli.js: PACKAGE_ROOT is the folder above the file that holds it.
  chunkNames: 'cli-[name]-[hash]',
  sourcemap: true,
  allowOverwrite: true,
  metafile: true,
  absWorkingDir: root,
  logLevel: 'warning',
  plugins: [
    {
      name: 'externals',
      setup(b) {
        // The sandbox's worker entry finds worker.js beside itself: it stays tsc's file (it imports only node:*).
        // zod's index re-exports all 48 locales as `z.locales` (250 KiB of source, over half the start chunk, compiled
        // before the first request); troupe uses only English, which zod configures from locales/en.js itself.
        b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
          args.resolveDir.includes(`${'node_modules'}/zod/`)
            ? { path: 'zod-locales-english', namespace: 'zod-locales', pluginData: join(args.resolveDir, args.path, '..', 'en.js') }
            : undefined,
        );
        // The importer's own en.js (the path zod's index reaches it by), so it is bundled once however node_modules is linked.
        b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.pluginData)};`, resolveDir: root }));
        b.onResolve({ filter: /worker-entry\.js$/ }, () => ({ path: './workflow/sandbox/worker-entry.js', external: true }));
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
          return BUNDLED.has(name) ? undefined : { path: args.path, external: true };
        });
      },
    },
  ],
});
const outputs = Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'));
const kib = outputs.reduce((sum, f) => sum + statSync(join(root, f)).size, 0) / 1024;
if (process.env.TROUPE_BUILD_QUIET !== '1') console.log(`cli: dist/cli.js and ${outputs.length - 1} chunks, ${kib.toFixed(0)} KiB`);

// Bundles the CLI for a cold start: run by `npm run build` after tsc, it writes
//   dist/cli.cjs  the whole CLI (src/cli.tsx and what it imports, with zod, openai and the other pure-JS
//                 packages on the start path) as one CommonJS script;
//   dist/cli.js   the `troupe` command (src/launch/cli-launcher.ts), which runs dist/cli.cjs with V8's code
//                 cache (src/launch/cached-bundle.ts): a start after the first skips parsing and compiling.
// Node 20 has no code cache for ES modules (module.enableCompileCache came in Node 22), only for scripts,
// which is why the bundle is CommonJS. zod goes in without its 48 locale modules (nothing uses them: its
// English messages are the ones configured). The library (dist/index.js, dist/testing.js) and every other
// dist/ module stay tsc's, one file per source file.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { COMMAND_SPECS } from '../dist/cli/command-specs.js';
import { BUNDLE_IMPORT } from '../dist/launch/cached-bundle.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
// Pure-JS packages the bundle holds, with what they import. string-width is an ES module only, which the bundle's
// `require` would get as a namespace where esbuild expects CommonJS exports; ink (top-level await) is imported first.
const BUNDLED = new Set(['zod', 'openai', 'eventemitter3', 'fastest-levenshtein', 'lowdb', 'steno', 'string-width', 'acorn']);
const common = { bundle: true, platform: 'node', target: 'node20', sourcemap: true, allowOverwrite: true, metafile: true, absWorkingDir: root, logLevel: 'warning' };

for (const f of readdirSync(dist)) if (/^cli-.*\.js(\.map)?$/.test(f)) rmSync(join(dist, f));
const bundle = await build({
  ...common,
  entryPoints: [join(root, 'src', 'cli.tsx')],
  outfile: join(dist, 'cli.cjs'),
  format: 'cjs',
  // The bundle's import.meta.url: PACKAGE_ROOT is the folder above the file that holds it.
  define: { 'import.meta.url': '__troupe_module_url' },
  banner: { js: 'var __troupe_module_url = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [
    {
      name: 'externals',
      setup(b) {
        // The sandbox's worker entry finds worker.js beside itself: it stays tsc's file (it imports only node:*).
        // zod's index re-exports all 48 locales as `z.locales` (250 KiB of source, over half of zod, compiled
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
          if (args.importer.includes(`${'node_modules'}/`) && !args.path.startsWith('node:')) return undefined;
          const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
          return BUNDLED.has(name) ? undefined : { path: args.path, external: true };
        });
      },
    },
  ],
});

// A package the bundle `require`s must be CommonJS or have a `require` build: an ES module only would come back as a
// namespace where esbuild's code expects CommonJS exports. ink is the exception, imported before the UI needs it.
const IMPORTED_FIRST = new Set(['ink']);
const externals = Object.values(bundle.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external && /^[^./]/.test(i.path) && !i.path.startsWith('node:')));
for (const { path } of externals) {
  const name = path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0];
  const pkg = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'));
  const requirable = pkg.type !== 'module' || JSON.stringify(pkg.exports ?? {}).includes('"require"');
  if (!requirable && !IMPORTED_FIRST.has(name)) throw new Error(`build-cli: ${name} is an ES module only: add it to BUNDLED in scripts/build-cli.mjs`);
}

// V8 drops the dynamic-import callback of a script compiled from its code cache, so the bundle's `import()`
// of a package goes through the launcher's importer instead (exact calls, as esbuild wrote them).
const file = join(dist, 'cli.cjs');
let code = readFileSync(file, 'utf8');
const dynamic = Object.values(bundle.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.kind === 'dynamic-import' && i.external).map((i) => i.path));
for (const specifier of new Set(dynamic)) {
  const call = `import(${JSON.stringify(specifier)})`;
  if (!code.includes(call)) throw new Error(`build-cli: the bundle imports ${specifier} but holds no ${call} to route through the launcher`);
  code = code.split(call).join(`${BUNDLE_IMPORT}(${JSON.stringify(specifier)})`);
}
writeFileSync(file, code);

const launcher = await build({
  ...common,
  entryPoints: [join(root, 'src', 'launch', 'cli-launcher.ts')],
  outfile: join(dist, 'cli.js'),
  format: 'esm',
  define: {
    BUNDLE_BUILD: JSON.stringify(createHash('sha256').update(code).digest('hex').slice(0, 16)),
    BUNDLE_COMMANDS: JSON.stringify(COMMAND_SPECS.map((c) => c.name).filter(Boolean)),
  },
});
const outputs = [...Object.keys(bundle.metafile.outputs), ...Object.keys(launcher.metafile.outputs)].filter((f) => /\.c?js$/.test(f));
const kib = outputs.reduce((sum, f) => sum + statSync(join(root, f)).size, 0) / 1024;
if (process.env.TROUPE_BUILD_QUIET !== '1') console.log(`cli: dist/cli.js runs dist/cli.cjs (${kib.toFixed(0)} KiB) with V8's code cache`);

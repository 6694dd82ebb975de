// Builds the web console (src/console/, Preact + dagre) into dist/console/: console.js, console.css, index.html.
// Run by `npm run build` after tsc; esbuild's binary comes inside its npm package (no download).
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'console');
const out = join(root, 'dist', 'console');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { console: join(src, 'main.tsx') },
  outdir: out,
  bundle: true,
  format: 'esm',
  target: 'es2020',
  minify: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(join(src, 'index.html'), join(out, 'index.html'));
const size = (f) => `${(statSync(join(out, f)).size / 1024).toFixed(1)} KiB`;
if (process.env.TROUPE_BUILD_QUIET !== '1') console.log(`console: dist/console/console.js ${size('console.js')}, console.css ${size('console.css')}`);

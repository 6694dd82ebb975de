#!/usr/bin/env node
// The `troupe` command (bundled to dist/cli.js by scripts/build-cli.mjs): runs the CLI's bundle, dist/cli.cjs,
// with V8's code cache, so a start after the first skips compiling the ~1.5 MiB of JavaScript it loads.
import { fileURLToPath } from 'node:url';
import { runCachedBundle } from './cached-bundle.js';
import { codeCacheDir, codeCacheFile } from './code-cache.js';

declare const BUNDLE_BUILD: string;
declare const BUNDLE_COMMANDS: readonly string[];

const command = process.argv[2] ?? '';
const dir = codeCacheDir(process.env);
const cacheFile = dir ? codeCacheFile(dir, BUNDLE_BUILD, BUNDLE_COMMANDS.includes(command) ? command : 'default') : null;
runCachedBundle(fileURLToPath(new URL('./cli.cjs', import.meta.url)), cacheFile, (specifier) => import(specifier));

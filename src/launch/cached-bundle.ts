import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import v8 from 'node:v8';
import { Script } from 'node:vm';
import { readCodeCache, writeCodeCache } from './code-cache.js';
import { readFileSync } from 'node:fs';

/** What happened to the cached code: none kept, used, refused by V8 (another V8 or flags), or the cache is off. */
export type CodeCacheState = 'off' | 'absent' | 'accepted' | 'rejected';

/** Imports an ES module for the bundle; the module is then what the bundle's `require` returns for it. */
export type EsmImport = (specifier: string) => Promise<unknown>;

/** The name the bundle calls for `import()` of a package it does not hold (scripts/build-cli.mjs rewrites those). */
export const BUNDLE_IMPORT = '__troupe_import';

/**
 * Runs a CommonJS bundle compiled with V8's code cache: the first run saves the compiled code, later runs
 * skip parsing and compiling it. The bundle is written to run this way (scripts/build-cli.mjs): its
 * `import()` of a package goes through `BUNDLE_IMPORT`, because V8 drops a cached script's dynamic-import
 * callback, and a package loaded that way (an ES module with top-level await, which `require` cannot load)
 * is what `require` returns for it afterwards.
 */
export function runCachedBundle(bundle: string, cacheFile: string | null, importer: EsmImport): CodeCacheState {
  const source = readFileSync(bundle, 'utf8');
  const cachedData = cacheFile ? readCodeCache(cacheFile) : undefined;
  // The wrapper keeps the bundle's own first line on line 1, so stack traces name the bundle's lines.
  const script = new Script(`(function (exports, require, module, __filename, __dirname, ${BUNDLE_IMPORT}) {${source}\n})`, {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  const state: CodeCacheState = !cacheFile ? 'off' : !cachedData ? 'absent' : script.cachedDataRejected ? 'rejected' : 'accepted';
  if (cacheFile && state !== 'accepted') saveBeforeFlagsChange(script, cacheFile);
  const imported = new Map<string, unknown>();
  const load = createRequire(bundle);
  const bundleRequire = Object.assign((id: string) => (imported.has(id) ? imported.get(id) : load(id)), { resolve: load.resolve, cache: load.cache });
  const bundleImport = async (id: string) => {
    const module = await importer(id);
    imported.set(id, module);
    return module;
  };
  const module = { exports: {} };
  script.runInThisContext()(module.exports, bundleRequire, module, bundle, dirname(bundle), bundleImport);
  return state;
}

/**
 * Saves the compiled code once: when the process exits, or before the first V8 flag change if that comes
 * sooner, since V8 refuses code cached under other flags than the ones it loads with (the CLI sizes the
 * heap for memory once a command is under way). Saved late, the cache holds every function compiled so far.
 */
function saveBeforeFlagsChange(script: Script, file: string): void {
  let saved = false;
  const save = () => {
    if (saved) return;
    saved = true;
    v8.setFlagsFromString = setFlags;
    writeCodeCache(file, script.createCachedData());
  };
  const setFlags = v8.setFlagsFromString;
  v8.setFlagsFromString = (flags: string) => {
    save();
    setFlags(flags);
  };
  process.once('exit', save);
}

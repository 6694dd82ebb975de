import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-cached-bundle-');

// A bundle the way scripts/build-cli.mjs writes one: CommonJS, `require` for packages, `__troupe_import` for
// an ES module with top-level await (which `require` cannot load), then `require` of it; it may change V8 flags.
const BUNDLE = `
const path = require('node:path');
const flags = process.env.BUNDLE_FLAGS;
if (flags) require('node:v8').setFlagsFromString(flags);
__troupe_import(process.env.BUNDLE_ESM).then(() => {
  const esm = require(process.env.BUNDLE_ESM);
  process.stdout.write(['ran', path.basename(__filename), esm.answer].join(' '));
});
`;

/** Runs the bundle in a fresh Node process through runCachedBundle: its output and the cache state reported. */
function runWithState(dir: string, cacheFile: string | null, env: Record<string, string> = {}): { out: string; state: string } {
  const launcher = join(dir, 'launch.mjs');
  const source = pathToFileURL(join(REPO_ROOT, 'src', 'launch', 'cached-bundle.ts')).href;
  writeFileSync(
    launcher,
    `import { runCachedBundle } from ${JSON.stringify(source)};\n` +
      `const state = runCachedBundle(${JSON.stringify(join(dir, 'bundle.cjs'))}, ${JSON.stringify(cacheFile)}, (s) => import(s));\n` +
      `process.on('exit', () => process.stdout.write(' state=' + state));\n`,
  );
  const out = execFileSync(process.execPath, ['--import', 'tsx', launcher], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', BUNDLE_ESM: pathToFileURL(join(dir, 'tla.mjs')).href, ...env },
    encoding: 'utf8',
  });
  const [text, state] = out.split(' state=');
  return { out: text!, state: state! };
}
function setUp(): { dir: string; cache: string } {
  const dir = temp();
  writeFileSync(join(dir, 'bundle.cjs'), BUNDLE);
  writeFileSync(join(dir, 'tla.mjs'), 'await Promise.resolve();\nexport const answer = 42;\n');
  return { dir, cache: join(dir, 'cache', 'run.bin') };
}

describe('running the CLI bundle with V8 code cache', () => {
  it('the first run saves the compiled code, the next one runs from it with the same result', () => {
    const { dir, cache } = setUp();
    expect(runWithState(dir, cache)).toEqual({ out: 'ran bundle.cjs 42', state: 'absent' });
    expect(readFileSync(cache).length).toBeGreaterThan(0);
    // From the cache, V8 drops a script's own import() callback: the bundle's imports go through the launcher.
    expect(runWithState(dir, cache)).toEqual({ out: 'ran bundle.cjs 42', state: 'accepted' });
  });

  it('a damaged cache (random bytes, cut short, empty, one byte flipped anywhere) is not handed to V8: the bundle runs and the cache is made again', () => {
    const { dir, cache } = setUp();
    runWithState(dir, cache);
    const good = readFileSync(cache);
    const flipped = (at: number) => Buffer.from(good.map((b, i) => (i === at ? b ^ 0xff : b)));
    // A flipped byte deep in V8's code (past the header V8 checks) aborted the process with SIGTRAP at every start.
    const damaged = [
      Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)),
      good.subarray(0, good.length >> 1),
      Buffer.alloc(0),
      flipped(5),
      flipped(good.length >> 1),
      flipped(good.length - 1),
    ];
    for (const bad of damaged) {
      writeFileSync(cache, bad);
      expect(runWithState(dir, cache)).toEqual({ out: 'ran bundle.cjs 42', state: 'absent' });
      expect(runWithState(dir, cache).state).toBe('accepted');
    }
    // Thirteen Node starts under tsx: 18-20 s on a machine loaded to 17 (CI shares it), past the default limit.
  }, 90_000);

  it('a cache V8 refuses (made for other source) is replaced', () => {
    const { dir, cache } = setUp();
    runWithState(dir, cache);
    writeFileSync(join(dir, 'bundle.cjs'), `${BUNDLE}// a longer build\n`);
    expect(runWithState(dir, cache)).toEqual({ out: 'ran bundle.cjs 42', state: 'rejected' });
    expect(runWithState(dir, cache).state).toBe('accepted');
  });

  it('saves before the first V8 flag change, so the next start (with default flags) can use it', () => {
    const { dir, cache } = setUp();
    const env = { BUNDLE_FLAGS: '--optimize-for-size' };
    expect(runWithState(dir, cache, env).state).toBe('absent');
    // Saved at exit, after the flag change, V8 would refuse it at every start: a cache never used.
    expect(runWithState(dir, cache, env).state).toBe('accepted');
  });

  it('with the cache off it runs and writes nothing', () => {
    const { dir } = setUp();
    expect(runWithState(dir, null)).toEqual({ out: 'ran bundle.cjs 42', state: 'off' });
  });
});

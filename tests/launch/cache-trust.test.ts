import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { codeCacheDir, codeCacheFile, readCodeCache, writeCodeCache } from '../../src/launch/code-cache.js';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// Probe of the CLI's code cache (TROUPE_COMPILE_CACHE). V8 checks cached code against its source by length only:
// code cached for another script of the same length runs in its place. So a cache file someone else could
// write is code they choose, run at the user's next `troupe`.

const temp = tempDirPerTest('troupe-cache-trust-');
const OTHER_USER = 4242;
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

const BENIGN = `process.stdout.write('benign ' + 'output');`;
const HOSTILE = `process.stdout.write('HOSTILE' + ' codes');`;

// The bytes V8 caches for HOSTILE wrapped as runCachedBundle wraps a bundle (same length as BENIGN's).
function hostileCache(): Buffer {
  expect(HOSTILE.length).toBe(BENIGN.length);
  const wrap = (s: string) => `(function (exports, require, module, __filename, __dirname, __troupe_import) {${s}\n})`;
  const script = new Script(wrap(HOSTILE), { filename: 'x' });
  return script.createCachedData();
}

/** Runs a bundle holding BENIGN through runCachedBundle in a fresh Node, with `cacheFile`: what it printed. */
function runBenign(dir: string, cacheFile: string): string {
  writeFileSync(join(dir, 'bundle.cjs'), BENIGN);
  const launcher = join(dir, 'launch.mjs');
  const source = pathToFileURL(join(REPO_ROOT, 'src', 'launch', 'cached-bundle.ts')).href;
  writeFileSync(
    launcher,
    `import { runCachedBundle } from ${JSON.stringify(source)};\n` + `runCachedBundle(${JSON.stringify(join(dir, 'bundle.cjs'))}, ${JSON.stringify(cacheFile)}, (s) => import(s));\n`,
  );
  return execFileSync(process.execPath, ['--import', 'tsx', launcher], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
}

/** A cache root of this user's with the build folder made, and the file for `run` in it. */
function cacheOf(root: string): string {
  const file = codeCacheFile(root, 'build1', 'run');
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  return file;
}

describe('a planted cache file is code: it is used only where no one else could have written it', () => {
  it('(the premise) a cache of this user own folders, planted with code of the same length, runs that code', () => {
    const dir = temp();
    const file = cacheOf(join(dir, 'cache'));
    writeCodeCache(file, hostileCache());
    expect(runBenign(dir, file)).toBe('HOSTILE codes');
  });

  it('a cache folder others can write (group or world-writable, anywhere up the path) is not used', () => {
    for (const open of ['build', 'version', 'root'] as const) {
      const dir = temp();
      const root = join(dir, 'cache');
      const file = cacheOf(root);
      writeCodeCache(file, hostileCache());
      const folder = open === 'build' ? join(file, '..') : open === 'version' ? join(file, '..', '..') : root;
      chmodSync(folder, 0o777);
      expect(readCodeCache(file), open).toBeUndefined();
      expect(runBenign(dir, file), open).toBe('benign output');
      chmodSync(folder, 0o775);
      expect(readCodeCache(file), `${open} group-writable`).toBeUndefined();
    }
  });

  it.runIf(asRoot)('a cache file or folder owned by another user is not used', () => {
    const dir = temp();
    const file = cacheOf(join(dir, 'cache'));
    writeCodeCache(file, hostileCache());
    chownSync(file, OTHER_USER, OTHER_USER);
    expect(readCodeCache(file)).toBeUndefined();
    expect(runBenign(dir, file)).toBe('benign output');
    chownSync(file, 0, 0);
    chownSync(join(file, '..'), OTHER_USER, OTHER_USER);
    expect(readCodeCache(file)).toBeUndefined();
  });

  it('a cache root that is a link to a folder others can write is judged by that folder', () => {
    const dir = temp();
    const shared = join(dir, 'shared');
    mkdirSync(shared, { mode: 0o777 });
    chmodSync(shared, 0o777);
    symlinkSync(shared, join(dir, 'cache'));
    const file = cacheOf(join(dir, 'cache'));
    writeCodeCache(file, hostileCache());
    expect(readCodeCache(file)).toBeUndefined();
    expect(runBenign(dir, file)).toBe('benign output');
  });

  it('a cache file that is a link, or a hard link, to a file elsewhere is not read', () => {
    const dir = temp();
    const file = cacheOf(join(dir, 'cache'));
    const elsewhere = join(dir, 'elsewhere.bin');
    writeCodeCache(elsewhere, hostileCache());
    symlinkSync(elsewhere, file);
    expect(readCodeCache(file)).toBeUndefined();
    const hard = cacheOf(join(dir, 'cache2'));
    linkSync(elsewhere, hard);
    expect(readCodeCache(hard)).toBeUndefined();
  });

  it('a FIFO or a link to a device as the cache file does not hang or fill memory: the start goes on without it', () => {
    const dir = temp();
    const fifo = cacheOf(join(dir, 'a'));
    execFileSync('mkfifo', [fifo]);
    const zero = cacheOf(join(dir, 'b'));
    symlinkSync('/dev/zero', zero);
    const module = pathToFileURL(join(REPO_ROOT, 'src', 'launch', 'code-cache.ts')).href;
    for (const file of [fifo, zero]) {
      // In a child with a deadline: before, reading the FIFO blocked the process for good.
      const child = spawnSync(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', `import { readCodeCache } from ${JSON.stringify(module)}; process.stdout.write(String(readCodeCache(${JSON.stringify(file)})));`],
        { cwd: REPO_ROOT, encoding: 'utf8', timeout: 20_000 },
      );
      expect(child.signal, file).toBeNull();
      expect(child.stdout, file).toBe('undefined');
    }
  });
});

describe('writing the cache stays in its folder', () => {
  it('a link planted at the temporary file name does not make the write land on its target', () => {
    const dir = temp();
    const file = cacheOf(join(dir, 'cache'));
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'the user file');
    symlinkSync(victim, `${file}.${process.pid}.tmp`);
    writeCodeCache(file, Buffer.from('compiled'));
    expect(readFileSync(victim, 'utf8')).toBe('the user file');
  });

  it('nothing is written into a cache folder others can write', () => {
    const dir = temp();
    const root = join(dir, 'cache');
    mkdirSync(root, { mode: 0o777 });
    chmodSync(root, 0o777);
    const file = codeCacheFile(root, 'build1', 'run');
    writeCodeCache(file, Buffer.from('compiled'));
    expect(existsSync(file)).toBe(false);
    // Not even the folders for it.
    expect(readdirSync(root)).toEqual([]);
  });
});

describe('where the cache is: never a folder relative to the working directory (a cloned repository could ship one)', () => {
  it('a relative TROUPE_COMPILE_CACHE turns the cache off; a relative XDG_CACHE_HOME is ignored (as the XDG spec says)', () => {
    expect(codeCacheDir({ TROUPE_COMPILE_CACHE: '.cache/troupe' })).toBeNull();
    expect(codeCacheDir({ TROUPE_COMPILE_CACHE: 'cache' })).toBeNull();
    expect(codeCacheDir({ XDG_CACHE_HOME: 'rel' })).toBe(join(homedir(), '.cache', 'troupe', 'compile'));
    expect(codeCacheDir({ TROUPE_COMPILE_CACHE: '/abs/cache' })).toBe('/abs/cache');
  });
});

import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeCacheDir, codeCacheFile, readCodeCache, writeCodeCache } from '../../src/launch/code-cache.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-code-cache-');

describe('where the code cache lives', () => {
  it('TROUPE_COMPILE_CACHE names the folder, or turns the cache off; otherwise it is the user cache folder', () => {
    expect(codeCacheDir({ TROUPE_COMPILE_CACHE: '/x/cache' })).toBe('/x/cache');
    expect(codeCacheDir({ TROUPE_COMPILE_CACHE: 'off' })).toBeNull();
    expect(codeCacheDir({ TROUPE_COMPILE_CACHE: '0' })).toBeNull();
    expect(codeCacheDir({ XDG_CACHE_HOME: '/xdg' })).toBe(join('/xdg', 'troupe', 'compile'));
    expect(codeCacheDir({})).toBe(join(homedir(), '.cache', 'troupe', 'compile'));
  });

  it('one file per Node binary, build of the bundle and command', () => {
    const file = codeCacheFile('/c', 'abc', 'run');
    expect(file).toBe(join('/c', `${process.version}-${process.arch}`, 'abc', 'run.bin'));
  });
});

describe('writing the code cache', () => {
  it('writes the whole file for this user only, and leaves no temporary file', () => {
    const file = codeCacheFile(temp(), 'build1', 'run');
    writeCodeCache(file, Buffer.from('compiled'));
    expect(readCodeCache(file)?.toString()).toBe('compiled');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(file, '..'))).toEqual(['run.bin']);
  });

  it('a place it cannot write is skipped without an error', () => {
    const blocker = join(temp(), 'a-file');
    writeFileSync(blocker, 'not a folder');
    const file = codeCacheFile(blocker, 'build1', 'run');
    expect(() => writeCodeCache(file, Buffer.from('compiled'))).not.toThrow();
    expect(readCodeCache(file)).toBeUndefined();
  });

  it('removes the caches of builds not written to for a week, keeps recent ones', () => {
    const dir = temp();
    const now = Date.now();
    const old = join(dir, `${process.version}-${process.arch}`, 'old-build');
    const recent = join(dir, `${process.version}-${process.arch}`, 'recent-build');
    for (const d of [old, recent]) mkdirSync(d, { recursive: true }), writeFileSync(join(d, 'run.bin'), 'x');
    utimesSync(old, new Date(now - 8 * 24 * 3600 * 1000), new Date(now - 8 * 24 * 3600 * 1000));
    utimesSync(recent, new Date(now - 2 * 24 * 3600 * 1000), new Date(now - 2 * 24 * 3600 * 1000));
    writeCodeCache(codeCacheFile(dir, 'new-build', 'run'), Buffer.from('compiled'), now);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(recent)).toBe(true);
  });
});

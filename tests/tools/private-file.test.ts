import { chmodSync, chownSync, linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeCacheFile, readCodeCache, writeCodeCache } from '../../src/launch/code-cache.js';
import { sealKeyPath, sealSources } from '../../src/session/source-seal.js';
import { readPrivateFile } from '../../src/tools/private-file.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// probe16: the seal key (session/source-seal.ts) and the code cache (launch/cache-trust.ts) were read two ways, each
// missing a check of the other's. The key was used when hard-linked from elsewhere or in a folder others can change
// (they could swap it); the cache was read when group or others could read it. One read now checks both ways.

const temp = tempDirPerTest('troupe-private-file-');
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const sources = { teamDir: '/t', workflowSource: null };

/** A config home with a seal key of 32 bytes at its place, written by `place(keyPath, bytes)`. */
function configWithKey(place: (key: string, bytes: Buffer) => void): string {
  const config = temp();
  const key = sealKeyPath({ XDG_CONFIG_HOME: config });
  mkdirSync(join(key, '..'), { recursive: true, mode: 0o700 });
  place(key, Buffer.alloc(32, 7));
  return config;
}

describe('readPrivateFile: a file only this user could have written or read', () => {
  it('reads a file of this user, 0600, in folders only they can change', () => {
    const dir = temp();
    writeFileSync(join(dir, 'f'), 'secret', { mode: 0o600 });
    expect(readPrivateFile(join(dir, 'f'), 100)?.toString()).toBe('secret');
  });

  it('refuses a link, a hard link, a group- or other-readable file, a file past its bound, a FIFO, a folder others can change', () => {
    const dir = temp();
    const file = join(dir, 'f');
    writeFileSync(file, 'secret', { mode: 0o600 });
    symlinkSync(file, join(dir, 'link'));
    expect(readPrivateFile(join(dir, 'link'), 100)).toBeUndefined();
    linkSync(file, join(dir, 'hard'));
    expect(readPrivateFile(join(dir, 'hard'), 100)).toBeUndefined();
    writeFileSync(join(dir, 'readable'), 'secret', { mode: 0o640 });
    expect(readPrivateFile(join(dir, 'readable'), 100)).toBeUndefined();
    writeFileSync(join(dir, 'long'), 'x'.repeat(101), { mode: 0o600 });
    expect(readPrivateFile(join(dir, 'long'), 100)).toBeUndefined();
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o770);
    writeFileSync(join(open, 'f'), 'secret', { mode: 0o600 });
    expect(readPrivateFile(join(open, 'f'), 100)).toBeUndefined();
  });

  it.runIf(asRoot)('refuses a file another user owns (root included, for anyone else)', () => {
    const dir = temp();
    writeFileSync(join(dir, 'f'), 'secret', { mode: 0o600 });
    chownSync(join(dir, 'f'), 4242, 4242);
    expect(readPrivateFile(join(dir, 'f'), 100)).toBeUndefined();
    // To that user it is theirs (the folders above are root's); a root-owned file is not.
    expect(readPrivateFile(join(dir, 'f'), 100, 4242)?.toString()).toBe('secret');
    chownSync(join(dir, 'f'), 0, 0);
    expect(readPrivateFile(join(dir, 'f'), 100, 4242)).toBeUndefined();
  });
});

describe('the seal key is read as the code cache is', () => {
  it('a key hard-linked from a file elsewhere is not used (whoever holds the other name can read it)', () => {
    const config = configWithKey((key, bytes) => {
      const elsewhere = join(key, '..', '..', '..', 'elsewhere');
      writeFileSync(elsewhere, bytes, { mode: 0o600 });
      linkSync(elsewhere, key);
    });
    expect(sealSources(sources, { XDG_CONFIG_HOME: config })).toBeNull();
  });

  it('a key in a folder others can change is not used (they could put theirs in its place)', () => {
    const config = configWithKey((key, bytes) => writeFileSync(key, bytes, { mode: 0o600 }));
    chmodSync(join(config, 'troupe'), 0o777);
    expect(sealSources(sources, { XDG_CONFIG_HOME: config })).toBeNull();
    chmodSync(join(config, 'troupe'), 0o700);
    expect(sealSources(sources, { XDG_CONFIG_HOME: config })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('the code cache is read as the seal key is', () => {
  it('a cache file group or others can read is not used', () => {
    const file = codeCacheFile(join(temp(), 'cache'), 'build1', 'run');
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    writeCodeCache(file, Buffer.from('code'));
    expect(readCodeCache(file)?.toString()).toBe('code');
    chmodSync(file, 0o644);
    expect(readCodeCache(file)).toBeUndefined();
  });
});

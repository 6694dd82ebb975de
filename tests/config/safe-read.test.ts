import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { readConfigText, readRegularFile, UnreadableFile } from '../../src/config/safe-read.js';

const temp = tempDirPerTest('troupe-read-');
const problem = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UnreadableFile);
    return (error as UnreadableFile).problem;
  }
  throw new Error('expected a refusal');
};

describe('reading config files that must stay inside their directory', () => {
  it('reads a regular UTF-8 file inside the root', () => {
    const root = temp();
    writeFileSync(join(root, 'a.md'), 'héllo');
    expect(readConfigText(root, 'a.md')).toBe('héllo');
  });

  it('refuses "..", absolute paths outside and symlinks that leave the root', () => {
    const outside = temp();
    writeFileSync(join(outside, 'secret'), 'secret');
    const root = temp();
    mkdirSync(join(root, 'prompts'));
    symlinkSync(join(outside, 'secret'), join(root, 'prompts', 'link.md'));
    symlinkSync(outside, join(root, 'prompts', 'dirlink'));
    expect(problem(() => readConfigText(join(root, 'prompts'), '../../../../etc/passwd'))).toMatch(/outside/);
    expect(problem(() => readConfigText(join(root, 'prompts'), join(outside, 'secret')))).toMatch(/outside/);
    expect(problem(() => readConfigText(join(root, 'prompts'), 'link.md'))).toMatch(/symlink/);
    expect(problem(() => readConfigText(join(root, 'prompts'), 'dirlink/secret'))).toMatch(/symlink/);
  });

  it('refuses a directory, a FIFO (without hanging), a missing file, a file too large and invalid UTF-8', () => {
    const root = temp();
    mkdirSync(join(root, 'dir.md'));
    execFileSync('mkfifo', [join(root, 'fifo.md')]);
    writeFileSync(join(root, 'big.md'), 'x'.repeat(2048));
    writeFileSync(join(root, 'bad.md'), Buffer.from([0x68, 0xff, 0xfe, 0x69]));
    expect(problem(() => readConfigText(root, 'dir.md'))).toMatch(/is a directory/);
    expect(problem(() => readConfigText(root, 'fifo.md'))).toMatch(/not a regular file/);
    expect(problem(() => readConfigText(root, 'missing.md'))).toMatch(/does not exist/);
    expect(problem(() => readConfigText(root, 'big.md', 1024))).toMatch(/2048 bytes \(at most 1024\)/);
    expect(problem(() => readConfigText(root, 'bad.md'))).toMatch(/not valid UTF-8/);
  });

  it('reads an empty file, a file exactly at the cap and multi-byte text whole', () => {
    const root = temp();
    writeFileSync(join(root, 'empty.md'), '');
    writeFileSync(join(root, 'cap.md'), 'y'.repeat(1024));
    writeFileSync(join(root, 'wide.md'), 'é漢🎭'.repeat(200));
    expect(readConfigText(root, 'empty.md')).toBe('');
    expect(readConfigText(root, 'cap.md', 1024)).toBe('y'.repeat(1024));
    expect(readConfigText(root, 'wide.md')).toBe('é漢🎭'.repeat(200));
  });
});

describe('readRegularFile', () => {
  // /proc files say size 0 and hold more: as a file that grew after its size was read (the --replay reader checked the size once, then read to the end).
  it.skipIf(process.platform !== 'linux')('counts the bytes as it reads: a file whose size says less than it holds is refused past the limit, not read whole', () => {
    expect(readRegularFile('/proc/self/maps', 64)).toEqual({ problem: 'too large', size: 65 });
    const dir = temp();
    writeFileSync(join(dir, 'small.txt'), 'hello');
    expect(readRegularFile(join(dir, 'small.txt'), 64)).toEqual({ bytes: Buffer.from('hello') });
    expect(readRegularFile(dir, 64)).toEqual({ problem: 'not regular' });
  });
});

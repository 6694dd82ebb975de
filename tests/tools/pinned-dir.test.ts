import { existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inParentOf, namesOf, openDirAt, type StepHook } from '../../src/tools/pinned-dir.js';
import { fingerprint } from '../helpers/fingerprint.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-pinned-');
let ws: string;
let outside: string;
let before: Record<string, string>;

beforeEach(() => {
  const base = temp();
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(outside, 'keep.txt'), 'outside');
  before = fingerprint(outside);
});

afterEach(() => {
  // Whatever was swapped in, nothing outside the workspace was made or changed.
  expect(fingerprint(outside)).toEqual(before);
});

/** A hook that runs `swap` once, when the walk is about to open `at`. */
const swapAt = (at: string, swap: () => void): StepHook => {
  let done = false;
  return ({ shown }) => {
    if (shown !== at || done) return;
    done = true;
    swap();
  };
};

/** Creates `rel`'s directories (mkdir -p) and a file at its end, through the walker, with `between` run between the steps. */
const makeFile = (rel: string, between?: StepHook) =>
  inParentOf(ws, rel, { create: true, ...(between ? { between } : {}) }, async (dir, name) => {
    writeFileSync(dir.at(name), 'made');
    return dir.showOf(name);
  });

describe('the pinned walker (mkdir -p one checked step at a time)', () => {
  it('creates each missing directory and reaches the file below them', async () => {
    expect(await makeFile('a/b/c/f.txt')).toBe('a/b/c/f.txt');
    expect(existsSync(join(ws, 'a/b/c/f.txt'))).toBe(true);
  });

  it('a component swapped for a link to outside between its check and its open is refused; nothing is made outside', async () => {
    const swap = () => {
      renameSync(join(ws, 'a'), join(ws, 'a-was'));
      symlinkSync(outside, join(ws, 'a'));
    };
    await expect(makeFile('a/b/c/f.txt', swapAt('a', swap))).rejects.toThrow('"a" (on the way to "a/b/c/f.txt") changed while it was opened; refused');
    expect(existsSync(join(outside, 'b'))).toBe(false);
  });

  it('a component swapped for another directory between its check and its open is refused (device and inode differ)', async () => {
    const swap = () => {
      renameSync(join(ws, 'a', 'b'), join(ws, 'a', 'b-was'));
      mkdirSync(join(ws, 'a', 'b'));
    };
    await expect(makeFile('a/b/f.txt', swapAt('a/b', swap))).rejects.toThrow('"a/b" (on the way to "a/b/f.txt") changed while it was opened; refused');
  });

  it.skipIf(process.platform !== 'linux')('a directory already open stays where it is: swapping it for a link afterwards sends nothing outside', async () => {
    // When the walk is about to open a/b, a (already open) is moved away and replaced by a link to outside.
    const swap = () => {
      renameSync(join(ws, 'a'), join(ws, 'a-was'));
      symlinkSync(outside, join(ws, 'a'));
    };
    expect(await makeFile('a/b/f.txt', swapAt('a/b', swap))).toBe('a/b/f.txt');
    // The directory and the file went where the walk had pinned "a": the directory now named a-was.
    expect(existsSync(join(ws, 'a-was', 'b', 'f.txt'))).toBe(true);
  });

  it('a component that is a link, a file or missing at call time is refused with what it is', async () => {
    symlinkSync(outside, join(ws, 'out'));
    writeFileSync(join(ws, 'file'), 'x');
    await expect(makeFile('out/new/f.txt')).rejects.toThrow('"out" (on the way to "out/new/f.txt") became a symbolic link; refused');
    await expect(makeFile('file/f.txt')).rejects.toThrow('"file" (on the way to "file/f.txt") is a regular file, not a directory');
    await expect(openDirAt(ws, 'none/deeper')).rejects.toThrow('"none" (on the way to "none/deeper") does not exist');
    expect(existsSync(join(ws, 'none'))).toBe(false);
  });

  it('takes plain relative paths only', () => {
    expect(namesOf('.')).toEqual([]);
    expect(namesOf('a/b')).toEqual(['a', 'b']);
    for (const bad of ['../x', 'a/../../x', '/abs', 'a//b', 'a/./b', 'a\0b']) expect(() => namesOf(bad), bad).toThrow('is not a plain path below the workspace');
  });
});

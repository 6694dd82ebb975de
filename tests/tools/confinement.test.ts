import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprint } from '../helpers/fingerprint.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { createToolset, type Toolset } from '../../src/tools/toolset.js';
import { confine } from '../../src/tools/confine.js';
import { readConfined, writeConfined } from '../../src/tools/safe-fs.js';

const temp = tempDirPerTest('troupe-confine-');

const SECRET = 'TOP-SECRET-sentinel-0xC0FFEE';
let base: string;
let ws: string;
let outside: string;
let tools: Toolset;
let before: Record<string, string>;
const call = (name: string, args: unknown) => tools.run({ name, arguments: JSON.stringify(args) });

beforeEach(() => {
  base = temp();
  ws = join(base, 'sessions', 's1', 'workspace');
  outside = join(base, 'outside');
  mkdirSync(ws, { recursive: true });
  mkdirSync(join(outside, '.ssh'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  writeFileSync(join(outside, '.ssh', 'id_rsa'), `-----BEGIN KEY----- ${SECRET}`);
  writeFileSync(join(ws, 'inside.txt'), 'inside');
  symlinkSync(join(outside, 'secret.txt'), join(ws, 'secret-link'));
  symlinkSync(outside, join(ws, 'outdir'));
  symlinkSync(join(outside, 'not-yet.txt'), join(ws, 'dangling'));
  symlinkSync('inside.txt', join(ws, 'alias'));
  tools = createToolset({ workspace: ws, commands: { mode: 'deny' } });
  before = fingerprint(outside);
});

afterEach(() => {
  // Nothing outside the workspace was touched, whatever the test did.
  expect(fingerprint(outside)).toEqual(before);
});

describe('paths are confined to the workspace', () => {
  it('refuses .. escapes and absolute paths outside, for every file tool', async () => {
    const escapes = ['../../etc/passwd', '../../../../../../etc/passwd', '/etc/passwd', join(outside, 'secret.txt'), 'sub/../../outside/secret.txt'];
    for (const path of escapes) {
      for (const [tool, args] of [
        ['read_file', { path }],
        ['write_file', { path, content: 'pwned' }],
        ['edit_file', { path, old_text: 'a', new_text: 'b' }],
        ['list_files', { path }],
        ['search_files', { pattern: 'root', path }],
      ] as const) {
        const result = await call(tool, args);
        expect(result.ok, `${tool} ${path}`).toBe(false);
        expect(result.content).toMatch(/is outside the workspace/);
        expect(result.content).not.toContain(SECRET);
      }
    }
  });

  it('refuses to read or write through a symlink that leads outside (file or parent directory)', async () => {
    for (const path of ['secret-link', 'outdir/secret.txt', 'outdir/.ssh/id_rsa']) {
      const read = await call('read_file', { path });
      expect(read.content).toMatch(/symbolic link that leads outside the workspace; refused/);
      expect(read.content).not.toContain(SECRET);
    }
    for (const path of ['secret-link', 'outdir/new.txt', 'outdir/deeper/new.txt', 'outdir/secret.txt']) {
      expect((await call('write_file', { path, content: 'pwned' })).content).toMatch(/leads outside the workspace; refused/);
    }
    expect((await call('edit_file', { path: 'secret-link', old_text: SECRET, new_text: 'x' })).content).toMatch(/leads outside/);
    expect((await call('list_files', { path: 'outdir' })).content).toMatch(/leads outside/);
    expect((await call('search_files', { pattern: 'SECRET', path: 'outdir' })).content).toMatch(/leads outside/);
  });

  it('refuses a dangling symlink instead of creating its target', async () => {
    const result = await call('write_file', { path: 'dangling', content: 'pwned' });
    expect(result.content).toMatch(/"dangling" is a symbolic link whose target does not exist; refused/);
  });

  it('follows a symlink that stays inside; listing and search never follow links', async () => {
    expect((await call('read_file', { path: 'alias' })).content).toBe('inside');
    expect((await call('list_files', {})).content).toBe('alias@\ndangling@\ninside.txt\noutdir@\nsecret-link@');
    expect((await call('search_files', { pattern: 'SECRET' })).content).toBe('no matches in 1 file(s)');
  });

  it('refuses writes inside .git', async () => {
    mkdirSync(join(ws, '.git'));
    expect((await call('write_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh' })).content).toMatch(/inside .git; tools do not write there/);
  });

  it('confine resolves the deepest existing part and reports the real path', async () => {
    mkdirSync(join(ws, 'a'));
    expect(await confine(ws, 'a/b/c.txt')).toEqual({ real: join(ws, 'a/b/c.txt'), shown: 'a/b/c.txt', exists: false });
    expect(await confine(ws, 'alias')).toEqual({ real: join(ws, 'inside.txt'), shown: 'inside.txt', exists: true });
    await expect(confine(ws, '')).rejects.toThrow('the path is empty');
    await expect(confine(ws, 'a\0b')).rejects.toThrow('NUL byte');
  });

  it('checks every component again as it walks, so a path swapped after the check is caught (no directory made outside)', async () => {
    // As if outdir had been an ordinary directory when confine checked it and became a symlink before the use.
    const swapped = (name: string) => ({ real: join(ws, 'outdir', name), shown: name, exists: name === 'secret.txt' });
    await expect(readConfined(ws, swapped('secret.txt'), 1_000)).rejects.toThrow('"outdir" (on the way to "outdir/secret.txt") became a symbolic link; refused');
    await expect(writeConfined(ws, swapped('secret.txt'), Buffer.from('pwned'))).rejects.toThrow('became a symbolic link; refused');
    await expect(writeConfined(ws, swapped('planted.txt'), Buffer.from('pwned'))).rejects.toThrow('became a symbolic link; refused');
    // mkdir -p through the swapped link would have made outside/deeper (afterEach checks the whole outside directory).
    await expect(writeConfined(ws, swapped('deeper/planted.txt'), Buffer.from('pwned'))).rejects.toThrow('became a symbolic link; refused');
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { createToolset, type ToolsetOptions } from '../../src/tools/toolset.js';

const temp = tempDirPerTest('troupe-tools-');

function setup(limits: ToolsetOptions['limits'] = {}) {
  const ws = temp();
  const tools = createToolset({ workspace: ws, limits });
  const call = (name: string, args: unknown) => tools.run({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
  return { ws, tools, call };
}

const hasMkfifo = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('read_file and write_file', () => {
  it('writes a new file (making its directories) and reads it back', async () => {
    const { ws, call } = setup();
    const wrote = await call('write_file', { path: 'src/deep/a.ts', content: 'export const a = 1;\n' });
    expect(wrote).toMatchObject({ ok: true, content: 'created src/deep/a.ts (20 B)', summary: 'write_file src/deep/a.ts' });
    expect(readFileSync(join(ws, 'src/deep/a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect((await call('write_file', { path: 'src/deep/a.ts', content: 'x' })).content).toBe('wrote src/deep/a.ts (1 B)');
    expect(await call('read_file', { path: './src/deep/../deep/a.ts' })).toMatchObject({ ok: true, content: 'x' });
  });

  it('a missing file, a directory and a file past the size limit are clear errors', async () => {
    const { ws, call } = setup({ maxFileBytes: 1_000 });
    mkdirSync(join(ws, 'dir'));
    writeFileSync(join(ws, 'huge.txt'), 'y'.repeat(5_000));
    expect((await call('read_file', { path: 'nope.txt' })).content).toBe('Error: "nope.txt" does not exist');
    expect((await call('read_file', { path: 'dir' })).content).toMatch(/"dir" is a directory; .*list_files/);
    expect((await call('read_file', { path: 'huge.txt' })).content).toBe('Error: "huge.txt" is 5.0 KB, over the 1.0 KB limit for one file; use search_files to find what you need in it');
    expect((await call('write_file', { path: 'big.txt', content: 'z'.repeat(2_000) })).content).toBe('Error: the content is 2.0 KB, over the 1.0 KB limit for one file');
  });

  it('a path that names a directory (a trailing "/", a last "." or "..") is refused by the file tools, never taken for the file', async () => {
    const { ws, call } = setup();
    writeFileSync(join(ws, 'a.txt'), 'kept');
    for (const path of ['a.txt/', 'a.txt//', 'b.txt/', 'a.txt/.', 'dir/..']) {
      const said = `Error: "${path}" names a directory; give the path of a file, without the trailing "${path.endsWith('..') ? '/..' : path.endsWith('.') ? '/.' : '/'}"`;
      expect((await call('write_file', { path, content: 'x' })).content).toBe(said);
      expect((await call('edit_file', { path, old_text: 'kept', new_text: 'x' })).content).toBe(said);
      expect((await call('read_file', { path })).content).toBe(said);
    }
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('kept');
    expect(readdirSync(ws)).toEqual(['a.txt']);
    // A directory named with a trailing slash is still listed.
    expect((await call('list_files', { path: './' })).content).toContain('a.txt');
  });

  it('a long file is read a page at a time, with the offset to read on', async () => {
    const { ws, call } = setup({ maxResultChars: 300 });
    writeFileSync(join(ws, 'long.txt'), Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n'));
    const first = await call('read_file', { path: 'long.txt' });
    expect(first.content).toMatch(/^line 1\nline 2\n/);
    expect(first.content).toMatch(/\[lines 1-13 of 50 shown; call read_file with offset 14 to read on\]$/);
    const next = await call('read_file', { path: 'long.txt', offset: 14, limit: 2 });
    expect(next.content).toBe('line 14\nline 15\n[lines 14-15 of 50 shown; call read_file with offset 16 to read on]');
    expect((await call('read_file', { path: 'long.txt', offset: 99 })).content).toMatch(/offset 99 is past its end/);
  });

  it('a binary file is not shown', async () => {
    const { ws, call } = setup();
    writeFileSync(join(ws, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    expect(await call('read_file', { path: 'image.png' })).toMatchObject({ ok: false, content: 'Error: "image.png" is a binary file (7 bytes); it is not shown' });
  });

  it.skipIf(!hasMkfifo)('a FIFO is refused without blocking, for reading and writing', async () => {
    const { ws, call } = setup();
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    expect((await call('read_file', { path: 'pipe' })).content).toMatch(/"pipe" is a FIFO \(named pipe\); only regular files/);
    expect((await call('write_file', { path: 'pipe', content: 'x' })).content).toMatch(/"pipe" is a FIFO/);
    expect((await call('edit_file', { path: 'pipe', old_text: 'a', new_text: 'b' })).content).toMatch(/"pipe" is a FIFO/);
    expect((await call('search_files', { pattern: 'x' })).content).toBe('no matches in 0 file(s)');
    expect((await call('list_files', {})).content).toBe('pipe?');
  });
});

describe('edit_file', () => {
  it('replaces text that occurs exactly once', async () => {
    const { ws, call } = setup();
    writeFileSync(join(ws, 'a.ts'), 'const a = 1;\nconst b = 2;\n');
    expect(await call('edit_file', { path: 'a.ts', old_text: 'const b = 2;', new_text: 'const b = 3;' })).toMatchObject({ ok: true, content: 'edited a.ts at line 2' });
    expect(readFileSync(join(ws, 'a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('refuses text that is missing, repeated, overlapping or empty, saying how often it occurs', async () => {
    const { ws, call } = setup();
    writeFileSync(join(ws, 'a.ts'), 'x = 1;\nx = 1;\naaa\n');
    const edit = (old_text: string) => call('edit_file', { path: 'a.ts', old_text, new_text: 'y' });
    expect((await edit('z = 9;')).content).toBe('Error: old_text does not occur in a.ts; read the file and copy the text exactly, whitespace included');
    expect((await edit('x = 1;')).content).toBe('Error: old_text occurs 2 times in a.ts; include more surrounding lines so it occurs exactly once');
    expect((await edit('aa')).content).toMatch(/occurs 2 times/);
    expect((await edit('')).content).toMatch(/old_text is empty/);
    expect(readFileSync(join(ws, 'a.ts'), 'utf8')).toBe('x = 1;\nx = 1;\naaa\n');
  });
});

describe('list_files', () => {
  it('lists recursively in sorted order, skipping .git, and stops at the cap', async () => {
    const { ws, call } = setup({ maxListEntries: 5 });
    mkdirSync(join(ws, '.git/objects'), { recursive: true });
    writeFileSync(join(ws, '.git/HEAD'), 'ref');
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src/b.ts'), '');
    writeFileSync(join(ws, 'src/a.ts'), '');
    writeFileSync(join(ws, 'README.md'), '');
    expect((await call('list_files', {})).content).toBe('README.md\nsrc/\nsrc/a.ts\nsrc/b.ts');
    expect((await call('list_files', { path: 'src' })).content).toBe('a.ts\nb.ts');
    for (let i = 0; i < 10; i++) writeFileSync(join(ws, `f${i}.txt`), '');
    const capped = await call('list_files', {});
    expect(capped.content.split('\n').slice(0, 5)).toEqual(['README.md', 'f0.txt', 'f1.txt', 'f2.txt', 'f3.txt']);
    expect(capped.content).toMatch(/\[listing stopped at 5 entries/);
    expect((await call('list_files', { path: 'README.md' })).content).toMatch(/is a file, not a directory/);
  });
});

describe('search_files', () => {
  it('finds literal text with file and line, and regular expressions', async () => {
    const { ws, call } = setup();
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src/a.ts'), 'const a = 1;\n// TODO: a.b\nexport { a };\n');
    writeFileSync(join(ws, 'src/b.ts'), 'todo later\n');
    writeFileSync(join(ws, 'bin.dat'), Buffer.from([0, 1, 2, 84, 79, 68, 79]));
    expect((await call('search_files', { pattern: 'TODO' })).content).toBe('src/a.ts:2: // TODO: a.b\n[1 binary, oversized or unreadable file(s) skipped]');
    expect((await call('search_files', { pattern: 'todo', ignore_case: true, path: 'src' })).content).toBe('src/a.ts:2: // TODO: a.b\nsrc/b.ts:1: todo later');
    expect((await call('search_files', { pattern: 'a.b' })).content).toMatch(/^src\/a.ts:2:/);
    expect((await call('search_files', { pattern: '^export \\{', regex: true })).content).toBe('src/a.ts:3: export { a };\n[1 binary, oversized or unreadable file(s) skipped]');
    expect((await call('search_files', { pattern: 'later', path: 'src/b.ts' })).content).toBe('src/b.ts:1: todo later');
    expect((await call('search_files', { pattern: '(', regex: true })).content).toMatch(/^Error: invalid regular expression/);
  });

  it('stops at the match cap', async () => {
    const { ws, call } = setup({ maxSearchMatches: 3 });
    writeFileSync(join(ws, 'many.txt'), 'hit\n'.repeat(20));
    const result = await call('search_files', { pattern: 'hit' });
    expect(result.content).toBe('many.txt:1: hit\nmany.txt:2: hit\nmany.txt:3: hit\n[stopped at 3 matches; narrow the pattern or the path]');
  });

  it('stops a regular expression that backtracks without end', async () => {
    const { ws, call } = setup({ searchTimeoutMs: 200 });
    // Hostile input kept as test data: nested quantifiers against a near-match take 2^40 steps.
    writeFileSync(join(ws, 'evil.txt'), `${'a'.repeat(40)}b\n`);
    const result = await call('search_files', { pattern: '^(a+)+$', regex: true });
    expect(result.ok).toBe(false);
    expect(result.content).toMatch(/ran longer than 200 ms and was stopped/);
  });
});

describe('arguments', () => {
  it('bad JSON, bad fields and unknown tools are errors the model reads, never throws', async () => {
    const { call } = setup();
    expect((await call('read_file', '{"path": ')).content).toMatch(/^Error: the arguments of read_file are not valid JSON/);
    expect((await call('read_file', { path: 5 })).content).toMatch(/^Error: bad arguments for read_file: path: /);
    expect((await call('read_file', {})).content).toMatch(/^Error: bad arguments for read_file: path: /);
    expect((await call('edit_file', { path: 'a' })).content).toMatch(/old_text: .*new_text: /);
    expect((await call('delete_everything', {})).content).toMatch(/^Error: unknown tool "delete_everything"; the tools here are read_file, write_file/);
  });

  it('specs carry JSON-Schema parameters derived from zod', () => {
    const { tools } = setup();
    const read = tools.specs.find((s) => s.name === 'read_file')!;
    expect(read.parameters).toMatchObject({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] });
    expect(read.parameters.$schema).toBeUndefined();
    expect(tools.specs.map((s) => s.name)).toEqual(['read_file', 'write_file', 'edit_file', 'list_files', 'search_files', 'run_command']);
    expect(() => createToolset({ workspace: temp(), tools: ['read_file', 'rm_rf'] })).toThrow('unknown agent tool "rm_rf"');
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirError, dataDirError } from '../../src/store/data-dir.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { runCli, cleanEnv } from '../helpers/cli.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A data dir path that is a file, inside a fresh temp dir. */
function fileAsDataDir(): string {
  dir = mkdtempSync(join(tmpdir(), 'troupe-datadir-'));
  const path = join(dir, 'not-a-dir');
  writeFileSync(path, 'x');
  return path;
}

describe('an unusable data directory', () => {
  it('every store operation on a TROUPE_DATA_DIR that is a file fails with one line naming it and the fix', async () => {
    const path = fileAsDataDir();
    const store = new LowdbStore(path);
    const message = new RegExp(`^cannot [a-z ]+: the data directory ${path.replace(/[.\\/]/g, '\\$&')} \\(TROUPE_DATA_DIR\\) is not a directory — set TROUPE_DATA_DIR to a directory you can write`);
    const file = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'sessions', 'v1.json'), 'utf8'));
    for (const op of [() => store.create(file), () => store.list(), () => store.ids(), () => store.read('x'), () => store.open('x')]) {
      await expect(op()).rejects.toBeInstanceOf(DataDirError);
      await expect(op()).rejects.toThrow(message);
    }
  });

  it('permission, read-only and full-disk errors become one-line user errors; others pass through', () => {
    const err = (code: string, path = '/d/sessions') => Object.assign(new Error(`${code}: boom`), { code, path });
    expect((dataDirError(err('EACCES'), '/d', 'save the session') as Error).message).toBe(
      'cannot save the session: permission denied in the data directory /d (TROUPE_DATA_DIR) at /d/sessions — set TROUPE_DATA_DIR to a directory you can write, or fix its permissions',
    );
    expect(dataDirError(err('EPERM'), '/d', 'x')).toBeInstanceOf(DataDirError);
    expect((dataDirError(err('EROFS'), '/d', 'x') as Error).message).toMatch(/read-only file system — set TROUPE_DATA_DIR/);
    expect((dataDirError(err('ENOSPC'), '/d', 'x') as Error).message).toMatch(/no space left/);
    const other = err('EIO');
    expect(dataDirError(other, '/d', 'x')).toBe(other);
  });

  it('troupe run and troupe sessions exit 1 with the one-line error, not "internal error"', async () => {
    const path = fileAsDataDir();
    for (const args of [['run', '--demo', 'a game'], ['sessions'], ['show'], ['resume']]) {
      const out = await runCli(args, cleanEnv({ TROUPE_DATA_DIR: path }));
      expect(out.code, args.join(' ')).toBe(1);
      expect(out.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^troupe: cannot [a-z ]+: the data directory .* \(TROUPE_DATA_DIR\) is not a directory — set TROUPE_DATA_DIR/)]);
    }
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COPY_MAX_SETTING, copyMaxBytes, copyTree, CopyTooLargeError, DEFAULT_COPY_MAX_BYTES } from '../../src/tools/copy-tree.js';
import { createWorkspace } from '../../src/tools/workspace.js';
import { UserError } from '../../src/errors.js';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-copytree-');
const TB = 1_000_000_000_000;
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A starting directory with a small file, and `extra` laid out in it. */
function start(extra: (dir: string) => void): string {
  const from = join(temp(), 'from');
  mkdirSync(join(from, 'src'), { recursive: true });
  writeFileSync(join(from, 'src', 'main.c'), 'int main(void) { return 0; }\n');
  extra(from);
  return from;
}

describe('copyTree bounds what a workspace copy writes', () => {
  // Hostile: a 1 TB file of holes in workspace.from (truncate makes one in an instant). A copy writes it whole, which
  // fills the disk long before it ends. Run in a child under a 200 MB file size limit, so a copy that writes it fails there.
  it('a 1 TB sparse file is refused by name, naming the setting, before any of it is written; the workspace is not left', () => {
    const from = start((dir) => {
      writeFileSync(join(dir, 'big.img'), '');
      truncateSync(join(dir, 'big.img'), TB);
    });
    expect(statSync(join(from, 'big.img')).size).toBe(TB);
    const root = temp();
    const out = execFileSync('prlimit', [`--fsize=${200_000_000}`, process.execPath, '--import', 'tsx', join(REPO_ROOT, 'tests', 'tools', 'sparse-copy-child.ts'), root, from], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, [COPY_MAX_SETTING]: '' },
    });
    const result = JSON.parse(out.trim()) as { error?: string; message?: string };
    expect(result.error).toBe('CopyTooLargeError');
    expect(result.message).toContain(`workspace "sparse": copying ${from} would write more than 2.0 GB (${COPY_MAX_SETTING})`);
    expect(result.message).toContain(`${join(from, 'big.img')} is 1.0 TB, 0 B of it on disk: a sparse file is copied whole`);
    expect(result.message).toContain(`raise ${COPY_MAX_SETTING}`);
    expect(result.message!.split('\n')).toHaveLength(1);
    expect(existsSync(join(root, 'workspaces', 'sparse'))).toBe(false);
  }, 60_000);

  it('counts every file: the one that passes the bound is refused after those before it, and nothing is left', async () => {
    const from = start((dir) => {
      writeFileSync(join(dir, 'a.bin'), Buffer.alloc(600_000, 1));
      writeFileSync(join(dir, 'b.bin'), Buffer.alloc(600_000, 2));
    });
    const root = temp();
    const made = createWorkspace({ root, name: 'w', from, maxCopyBytes: 1_000_000 });
    await expect(made).rejects.toThrow(CopyTooLargeError);
    await expect(made).rejects.toThrow(/after 60\d\.\d KB already copied — leave it out/);
    expect(readdirSync(join(root, 'workspaces'))).toEqual([]);
    // Exactly at the bound: copied.
    const to = join(temp(), 'to');
    expect(await copyTree(from, to, { skip: [], avoid: ['/nonexistent'], maxBytes: 1_200_000 + 29 })).toBe(1_200_029);
    expect(readdirSync(to).sort()).toEqual(['a.bin', 'b.bin', 'src']);
  });

  it(`takes its bound from ${COPY_MAX_SETTING}, and refuses a value that is not a positive whole number in one line`, async () => {
    expect(COPY_MAX_SETTING).toBe('TROUPE_WORKSPACE_COPY_MAX_BYTES');
    expect(copyMaxBytes({})).toBe(DEFAULT_COPY_MAX_BYTES);
    expect(copyMaxBytes({ [COPY_MAX_SETTING]: ' ' })).toBe(DEFAULT_COPY_MAX_BYTES);
    expect(copyMaxBytes({ [COPY_MAX_SETTING]: '5000' })).toBe(5000);
    for (const bad of ['-1', '0', '1.5', '1e400', 'lots', '0x10z']) {
      expect(() => copyMaxBytes({ [COPY_MAX_SETTING]: bad })).toThrow(UserError);
      expect(() => copyMaxBytes({ [COPY_MAX_SETTING]: bad })).toThrow(`${COPY_MAX_SETTING} must be a positive whole number of bytes, got "${bad}"`);
    }
    vi.stubEnv('TROUPE_WORKSPACE_COPY_MAX_BYTES', '10');
    const from = start(() => {});
    await expect(createWorkspace({ root: temp(), name: 'w', from })).rejects.toThrow(/main\.c is 29 B — leave it out/);
  });
});

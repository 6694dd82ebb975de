import { mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolset } from '../../src/tools/toolset.js';
import { MAX_WALK_DEPTH, walk } from '../../src/tools/walk.js';
import { changesSince, createWorkspace } from '../../src/tools/workspace.js';
import { takeSnapshot } from '../../src/tools/workspace-snapshot.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const made = tempDirPerTest('troupe-deep-tree-');
// Node's rmSync (the helper's clean-up) overflows the stack on such a tree; fs.promises.rm does not.
const deepDirs: string[] = [];
afterEach(async () => {
  for (const dir of deepDirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
const temp = () => {
  const dir = made();
  deepDirs.push(dir);
  return dir;
};
/** Deep enough that a walk recursing once per level overflowed the stack (a command's `mkdir -p` makes it in one call). */
const DEPTH = 2000;

/** A chain of DEPTH directories `d/d/…` with a file at depth 3 and one at the bottom. */
function deepTree(dir: string): void {
  const bottom = join(dir, ...Array.from({ length: DEPTH }, () => 'd'));
  mkdirSync(bottom, { recursive: true });
  writeFileSync(join(bottom, 'bottom.txt'), 'deep\n');
  writeFileSync(join(dir, 'd', 'd', 'd', 'near.txt'), 'near\n');
}

describe('a directory tree thousands of levels deep, as a hostile command leaves it', () => {
  it('the walk neither overflows the stack nor holds a descriptor per level: it stops at MAX_WALK_DEPTH and says so', async () => {
    const root = temp();
    deepTree(root);
    const tooDeep: string[] = [];
    let entries = 0;
    for await (const entry of walk(root, { tooDeep: (path) => tooDeep.push(path) })) {
      entries += 1;
      expect(entry.path.split('/').length).toBeLessThanOrEqual(MAX_WALK_DEPTH);
    }
    expect(entries).toBe(MAX_WALK_DEPTH + 1);
    expect(tooDeep).toEqual([Array.from({ length: MAX_WALK_DEPTH }, () => 'd').join('/')]);
  });

  it("a workspace's changes, list_files and search_files still answer; the snapshot says it is incomplete", async () => {
    const base = temp();
    const ws = await createWorkspace({ root: base, name: 'w' });
    deepTree(ws.dir);
    const snapshot = await takeSnapshot(ws.dir);
    expect(snapshot.truncated).toBe(true);
    expect(Object.keys(snapshot.files)).toContain('d/d/d/near.txt');
    const changes = await changesSince(ws);
    expect(changes.files.map((f) => f.path)).toEqual(['d/d/d/near.txt']);
    expect(changes.diff).toContain('more files than a snapshot holds');
    const tools = createToolset({ workspace: ws.dir });
    const listed = await tools.run({ name: 'list_files', arguments: '{}' });
    expect(listed.ok, listed.content).toBe(true);
    const found = await tools.run({ name: 'search_files', arguments: JSON.stringify({ pattern: 'near' }) });
    expect(found.content).toContain('d/d/d/near.txt:1: near');
  });
});

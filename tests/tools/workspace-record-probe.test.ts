import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { createWorkspace, openWorkspace } from '../../src/tools/workspace.js';
import { listWorkspaces } from '../../src/tools/workspace-list.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// Probe (round 11) of the records kept beside workspaces (`<session>/workspaces/<name>.json`): read by the listings
// (deliverables, the CLI's workspaces line) and by a resumed session, from a data dir that may be hand-made.

const temp = tempDirPerTest('troupe-workspace-record-probe-');

describe('workspace records and their size', () => {
  // The cause was: listWorkspaces (src/tools/workspace-list.ts) skipped records over 16 MiB, but a record holds its
  // baseline snapshot, up to 32 MB of text: a workspace started from 18 MB of text files (each under the 256 KB
  // text cap) has a record of about 18 MB, and was left out of the deliverables and the workspaces line.
  it('a workspace started from 18 MB of text is listed', { timeout: 60_000 }, async () => {
    const base = temp();
    const from = join(base, 'project');
    mkdirSync(from);
    for (let i = 0; i < 90; i++) writeFileSync(join(from, `f${i}.txt`), `line ${i} "quoted"\n`.repeat(10_000).slice(0, 200_000));
    const root = join(base, 'runs', 'session');
    mkdirSync(root, { recursive: true });
    const made = await createWorkspace({ root, name: 'coder', from });
    expect(statSync(join(root, 'workspaces', 'coder.json')).size).toBeGreaterThan(16 * 1024 * 1024);
    expect(await listWorkspaces(root)).toEqual([{ name: 'coder', dir: made.dir }]);
  });

  // The cause was: openWorkspace (src/tools/workspace.ts) read a record of any size: a sparse 1.9 GB file there read
  // 600 MiB and failed with a RangeError (an internal error, not the one line a damaged record gets).
  it('a resumed session refuses a record larger than troupe writes in one line, without reading it', async () => {
    const root = join(temp(), 'runs', 'session');
    mkdirSync(join(root, 'workspaces', 'coder'), { recursive: true });
    execFileSync('truncate', ['-s', '1900M', join(root, 'workspaces', 'coder.json')]);
    const before = process.memoryUsage().rss;
    const opening = openWorkspace({ root, name: 'coder' });
    await expect(opening).rejects.toBeInstanceOf(UserError);
    await expect(opening).rejects.toThrow(/coder\.json is 1992294400 bytes, larger than any workspace record troupe writes; remove the workspace/);
    expect(process.memoryUsage().rss - before).toBeLessThan(128 * 1024 * 1024);
  });
});

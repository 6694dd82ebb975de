import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/tools/workspace.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-ws-');

describe('a workspace whose making was cut off', () => {
  it('a directory without its record (a crash in between) is made again, not refused', async () => {
    const root = temp();
    mkdirSync(join(root, 'workspaces', 'impl_a'), { recursive: true });
    writeFileSync(join(root, 'workspaces', 'impl_a', 'half.txt'), 'left by a crash');
    const ws = await createWorkspace({ root, name: 'impl_a' });
    expect(ws.kind).toBe('empty');
    expect(existsSync(join(ws.dir, 'half.txt'))).toBe(false);
  });
});

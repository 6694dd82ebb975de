import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/team.js';

describe('lists the engine reads keep one map', () => {
  it('made by optimised code, they are packed and hold objects (an optimised map() made holey tool calls)', () => {
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', join(REPO_ROOT, 'tests/engine/fixtures/packed-probe.ts')], { cwd: REPO_ROOT, encoding: 'utf8' });
    const packed = { objects: true, holey: false };
    expect(JSON.parse(out)).toEqual({ rawOf: packed, packedMap: packed, objectList: packed, optimised: true });
  });
});

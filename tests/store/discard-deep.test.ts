import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { fixedClock, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { ENV } from './support.js';

const temp = tempDirPerTest('troupe-discard-deep-');

// Hostile: a session's own files (agents' workspaces) holding a directory tree 2,000 levels deep, as one
// `mkdir -p` in a workspace makes. Node's recursive rmSync overflows the stack on it; removing the files of a
// session that never started must not.
describe('a session that never started is removed', () => {
  it('with a 2,000-level tree among its files', async () => {
    const dir = temp();
    const store = new LowdbStore(dir);
    const session = await openSession({ team: studio(), model: new DemoModel(), store, id: 'deep', env: ENV, clock: fixedClock() });
    const files = store.filesOf('deep');
    mkdirSync(files, { recursive: true });
    // Relative to the session's files: the whole path would pass PATH_MAX for mkdirSync.
    execFileSync('mkdir', ['-p', Array.from({ length: 2000 }, () => 'a').join('/')], { cwd: files });
    await session.stop();
    expect(existsSync(files)).toBe(false);
    expect(existsSync(join(dir, 'sessions', 'deep.json'))).toBe(false);
  });
});

import { execFile } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// probe15, hostile: a shared data dir holding a released lock of another user (root's here). Taking it over moved it
// aside, then failed to open it (EACCES): the other user's lock file was gone and the error was a bare EACCES; in a
// sticky folder (/tmp) the move failed with a bare EPERM.
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const temp = tempDirPerTest('troupe-lock-other-');

/** acquireLock (the built store's) run as `uid`: what it says. */
function acquireAs(uid: number, path: string): Promise<string> {
  const script = `import(${JSON.stringify(join(REPO_ROOT, 'dist', 'store', 'lock.js'))}).then((m) => {
    try { m.acquireLock(${JSON.stringify(path)}, 's1'); console.log('acquired'); } catch (e) { console.log(e.constructor.name + ': ' + e.message); }
  });`;
  return new Promise((resolve) => execFile(process.execPath, ['-e', script], { uid, gid: uid, cwd: '/', timeout: 20_000 }, (_e, stdout, stderr) => resolve((stdout || stderr).trim())));
}

describe.skipIf(!asRoot)('another user’s lock in a shared data dir', () => {
  it.each([
    ['a folder anyone may write', 0o777],
    ['a sticky folder (as /tmp)', 0o1777],
  ])('in %s: left as it is, refused in one line', async (_, mode) => {
    const dir = temp();
    chmodSync(dir, mode);
    const lock = join(dir, 's1.lock');
    writeFileSync(lock, 'released  \n', { mode: 0o644 });
    const said = await acquireAs(NOBODY, lock);
    expect(said).toBe(`LockPathError: ${lock} is a lock of another user (uid 0), it was released: troupe takes over only its own user's locks — that user, or root, removes it`);
    expect(readFileSync(lock, 'utf8')).toBe('released  \n');
    expect(readdirSync(dir)).toEqual(['s1.lock']);
  });
});

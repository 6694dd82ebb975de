import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { createToolset } from '../../src/tools/toolset.js';
import { TurnUndo } from '../../src/tools/turn-undo.js';
import { dropUndoLogs, undoStoreOf } from '../../src/tools/undo-store.js';
import { createWorkspace, openWorkspace } from '../../src/tools/workspace.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// Probe (round 10): the folders troupe makes under a session's folder (`<data dir>/runs/<id>/workspaces`, its
// `.undo`, each undo log's folder) can be links in a hand-made data dir (a cloned repository's `.troupe/`): a
// `workspaces` link to a folder of the user's made troupe remove the user's `<that folder>/<workspace name>`
// (createWorkspace takes a folder without its record for one whose making was cut off), and an `.undo` link
// had `<that folder>/<workspace name>` removed after each turn. Troupe makes these folders itself: a link there is
// refused in one line, and nothing outside is touched.

const temp = tempDirPerTest('troupe-session-links-');

/** A session folder whose `<rel>` is a link to a folder of the user's holding `coder/precious.txt`. */
function linked(rel: string): { root: string; precious: string } {
  const base = temp();
  const root = join(base, 'runs', 's1');
  const users = join(base, 'users-projects');
  mkdirSync(join(users, 'coder'), { recursive: true });
  const precious = join(users, 'coder', 'precious.txt');
  writeFileSync(precious, 'the user work\n');
  const at = join(root, rel);
  mkdirSync(join(at, '..'), { recursive: true });
  symlinkSync(users, at);
  return { root, precious };
}

async function refusal(run: () => Promise<unknown>): Promise<string | null> {
  try {
    await run();
    return null;
  } catch (error) {
    if (error instanceof UserError) return error.message;
    throw error;
  }
}

describe('links where troupe makes its own folders in a session folder', () => {
  // The session folder itself (runs/<id>) or runs/ a link: the user's `<folder>/workspaces/coder` was taken for a
  // workspace whose making was cut off, and removed (probe10's note: runs/<id> was not checked).
  for (const at of ['runs/s1', 'runs']) {
    it(`${at} a link: making a workspace is refused and removes nothing of the user`, async () => {
      const base = temp();
      const users = join(base, 'users-projects');
      const precious = join(users, ...(at === 'runs' ? ['s1'] : []), 'workspaces', 'coder', 'precious.txt');
      mkdirSync(join(precious, '..'), { recursive: true });
      writeFileSync(precious, 'the user work\n');
      mkdirSync(join(base, at, '..'), { recursive: true });
      symlinkSync(users, join(base, at));
      const refused = await refusal(() => createWorkspace({ root: join(base, 'runs', 's1'), name: 'coder' }));
      expect(existsSync(precious)).toBe(true);
      expect(refused).toMatch(/ link/);
    });
  }

  it('workspaces a link: making a workspace is refused and removes nothing of the user', async () => {
    const { root, precious } = linked('workspaces');
    const refused = await refusal(() => createWorkspace({ root, name: 'coder' }));
    expect(existsSync(precious)).toBe(true);
    expect(refused).toMatch(/workspaces.* link/);
  });

  it('workspaces a link: reopening is refused', async () => {
    const { root, precious } = linked('workspaces');
    // A valid record (one made elsewhere), so only the link can refuse it: before, the user's folder was the agent's workspace.
    const made = join(temp(), 'runs', 's0');
    await createWorkspace({ root: made, name: 'coder' });
    writeFileSync(join(root, 'workspaces', 'coder.json'), readFileSync(join(made, 'workspaces', 'coder.json')));
    expect(await refusal(() => openWorkspace({ root, name: 'coder' }))).toMatch(/link/);
    expect(existsSync(precious)).toBe(true);
  });

  it('.undo a link: a turn neither removes nor writes there', async () => {
    const { root, precious } = linked(join('workspaces', '.undo'));
    const ws = join(root, 'workspaces', 'ws');
    mkdirSync(ws, { recursive: true });
    const tools = createToolset({ workspace: ws });
    const undo = new TurnUndo(tools.root, undoStoreOf(root, 'coder'));
    const refused = await refusal(async () => {
      await undo.restore('t1');
      await undo.begin('t1');
      await undo.commit();
    });
    expect(existsSync(precious)).toBe(true);
    expect(refused).toMatch(/\.undo.* link/);
  });

  it('workspaces a link: dropping the undo logs at the session end removes nothing of the user', async () => {
    const { root } = linked('workspaces');
    const users = join(root, 'workspaces');
    mkdirSync(join(users, '.undo'), { recursive: true });
    writeFileSync(join(users, '.undo', 'precious.txt'), 'x');
    await dropUndoLogs(root);
    expect(existsSync(join(users, '.undo', 'precious.txt'))).toBe(true);
  });

  it('(as made) a workspace and its undo logs work as before', async () => {
    const root = join(temp(), 'runs', 's1');
    const ws = await createWorkspace({ root, name: 'coder' });
    const undo = new TurnUndo(ws.dir, undoStoreOf(root, 'coder'));
    await undo.restore('t1');
    await undo.begin('t1');
    await undo.wrap(createToolset({ workspace: ws.dir })).run({ name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'a\n' }) });
    await undo.commit();
    expect(await openWorkspace({ root, name: 'coder' })).toMatchObject({ dir: ws.dir });
    await dropUndoLogs(root);
    expect(existsSync(join(root, 'workspaces', '.undo'))).toBe(false);
  });
});

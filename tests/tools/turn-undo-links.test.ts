import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { createToolset } from '../../src/tools/toolset.js';
import { TurnUndo } from '../../src/tools/turn-undo.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// Probe (round 10): a turn's undo log lives beside its workspace, under the session's folder of the data dir
// (`<data dir>/runs/<id>/workspaces/.undo/<name>`), which can come with a cloned repository's `.troupe/`. Links
// planted there must not make troupe write through them onto files of the user's.

const temp = tempDirPerTest('troupe-undo-links-');

function setup() {
  const base = temp();
  const ws = join(base, 'workspaces', 'coder');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'a.txt'), 'a\n');
  const store = join(base, 'workspaces', '.undo', 'coder');
  mkdirSync(store, { recursive: true });
  const tools = createToolset({ workspace: ws });
  return { base, ws, store, tools };
}

describe('the undo log writes only in its own folder', () => {
  it('a link at undo.json to a file that does not exist yet is not followed (the file is not made)', async () => {
    const { base, store, tools } = setup();
    const target = join(base, 'home', '.bash_aliases');
    mkdirSync(join(base, 'home'));
    symlinkSync(target, join(store, 'undo.json'));
    const undo = new TurnUndo(tools.root, store);
    await undo.restore('t1');
    await undo.begin('t1');
    await undo.wrap(tools).run({ name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'b\n' }) });
    expect(existsSync(target)).toBe(false);
  });

  it('a link at undo.json to a file of the user is not written through', async () => {
    const { base, store, tools } = setup();
    const target = join(base, 'users-file');
    writeFileSync(target, 'the user own file\n');
    symlinkSync(target, join(store, 'undo.json'));
    const undo = new TurnUndo(tools.root, store);
    await undo.restore('t1');
    await undo.begin('t1');
    await undo.wrap(tools).run({ name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'b\n' }) });
    expect(readFileSync(target, 'utf8')).toBe('the user own file\n');
  });

  it('the undo folder itself a link out: the turn is refused in one line, nothing is written there', async () => {
    const { base, tools } = setup();
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(elsewhere);
    const store = join(base, 'workspaces', '.undo', 'linked');
    symlinkSync(elsewhere, store);
    const undo = new TurnUndo(tools.root, store);
    await expect(
      (async () => {
        await undo.restore('t1');
        await undo.begin('t1');
      })(),
    ).rejects.toThrow(UserError);
    expect(existsSync(join(elsewhere, 'undo.json'))).toBe(false);
  });
});

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fingerprint } from '../helpers/fingerprint.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolset } from '../../src/tools/toolset.js';
import { TurnUndo } from '../../src/tools/turn-undo.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-undo-');

function setup() {
  const root = temp();
  const ws = join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'keep.txt'), 'original\n');
  const store = join(root, 'ws.undo');
  const tools = createToolset({ workspace: ws });
  return { ws, store, tools };
}

describe('undoing an unfinished tool turn', () => {
  it('a turn cut off before its answer was applied: re-run with the same turn id, its writes are put back first', async () => {
    const { ws, store, tools } = setup();
    const first = new TurnUndo(tools.root, store);
    await first.begin('t7');
    const wrapped = first.wrap(tools);
    await wrapped.run({ name: 'write_file', arguments: JSON.stringify({ path: 'keep.txt', content: 'changed\n' }) });
    await wrapped.run({ name: 'write_file', arguments: JSON.stringify({ path: 'new/made.txt', content: 'new\n' }) });
    await wrapped.run({ name: 'edit_file', arguments: JSON.stringify({ path: 'keep.txt', old_text: 'changed', new_text: 'edited' }) });
    expect(readFileSync(join(ws, 'keep.txt'), 'utf8')).toBe('edited\n');
    // The process dies here: no commit. The resumed session runs t7 again.
    const again = new TurnUndo(tools.root, store);
    expect(await again.restore('t7')).toEqual({ restored: 2, refused: [] });
    expect(readFileSync(join(ws, 'keep.txt'), 'utf8')).toBe('original\n');
    expect(existsSync(join(ws, 'new', 'made.txt'))).toBe(false);
    expect(existsSync(store)).toBe(false);
  });

  it('a log of another turn is dropped, not replayed (that turn may have been applied just before the crash); a committed turn leaves nothing', async () => {
    const { ws, store, tools } = setup();
    const first = new TurnUndo(tools.root, store);
    await first.begin('t7');
    await first.wrap(tools).run({ name: 'write_file', arguments: JSON.stringify({ path: 'keep.txt', content: 'applied\n' }) });
    expect(await new TurnUndo(tools.root, store).restore('t9')).toEqual({ restored: 0, refused: [] });
    expect(readFileSync(join(ws, 'keep.txt'), 'utf8')).toBe('applied\n');
    expect(existsSync(store)).toBe(false);
    const done = new TurnUndo(tools.root, store);
    await done.begin('t9');
    await done.wrap(tools).run({ name: 'write_file', arguments: JSON.stringify({ path: 'keep.txt', content: 'final\n' }) });
    await done.commit();
    expect(await new TurnUndo(tools.root, store).restore('t9')).toEqual({ restored: 0, refused: [] });
    expect(readFileSync(join(ws, 'keep.txt'), 'utf8')).toBe('final\n');
  });

  it('paths the tools refuse are not saved (nothing outside the workspace is copied)', async () => {
    const { store, tools } = setup();
    const undo = new TurnUndo(tools.root, store);
    await undo.begin('t1');
    const out = await undo.wrap(tools).run({ name: 'write_file', arguments: JSON.stringify({ path: '../../etc/passwd', content: 'x' }) });
    expect(out.ok).toBe(false);
    expect(JSON.parse(readFileSync(join(store, 'undo.json'), 'utf8')).saved).toEqual([]);
  });

  it('a log that was tampered with (a path out of the workspace, a copy out of the store) touches nothing outside', async () => {
    const { ws, store, tools } = setup();
    const outside = join(ws, '..', 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.txt'), 'outside\n');
    const before = fingerprint(outside);
    mkdirSync(store);
    writeFileSync(
      join(store, 'undo.json'),
      JSON.stringify({
        version: 1,
        turnId: 't1',
        saved: [
          { path: '../outside/keep.txt', copy: null },
          { path: 'keep.txt', copy: null },
        ],
      }),
    );
    expect(await new TurnUndo(tools.root, store).restore('t1')).toEqual({ restored: 1, refused: ['../outside/keep.txt ("../outside/keep.txt" is not a plain path below the workspace)'] });
    expect(existsSync(join(ws, 'keep.txt'))).toBe(false);
    mkdirSync(store);
    writeFileSync(join(store, 'undo.json'), JSON.stringify({ version: 1, turnId: 't1', saved: [{ path: 'stolen.txt', copy: '../outside/keep.txt' }] }));
    expect(await new TurnUndo(tools.root, store).restore('t1')).toEqual({ restored: 0, refused: [] });
    expect(existsSync(join(ws, 'stolen.txt'))).toBe(false);
    expect(fingerprint(outside)).toEqual(before);
  });
});

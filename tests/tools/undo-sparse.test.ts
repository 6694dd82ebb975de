import { mkdirSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolset } from '../../src/tools/toolset.js';
import { MAX_UNDO_BYTES, TurnUndo } from '../../src/tools/turn-undo.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-undo-sparse-');

/** Bytes the files directly in a directory take (their sizes). */
const stored = (dir: string) => readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);

/**
 * Hostile: a command makes a sparse file far larger than the disk it uses (`truncate -s 1T big`, one system
 * call, no space), then the agent calls write_file on it. The undo log saves a file before a write changes
 * it — by copying its content: troupe itself would write the whole terabyte of zeros beside the workspace.
 */
describe('the undo log and a huge sparse file', () => {
  it(`a file over ${MAX_UNDO_BYTES} bytes (or past the turn's budget) is not copied: the write is refused in one line, the file left as it is`, async () => {
    const root = temp();
    const ws = join(root, 'ws');
    mkdirSync(ws);
    // 300 MB: over the budget, small enough that an unbounded copy (the old behaviour) ends in a second or two.
    const size = MAX_UNDO_BYTES + 44_000_000;
    writeFileSync(join(ws, 'big'), '');
    truncateSync(join(ws, 'big'), size);
    writeFileSync(join(ws, 'small.txt'), 'small\n');
    const store = join(root, 'ws.undo');
    const tools = createToolset({ workspace: ws });
    const undo = new TurnUndo(tools.root, store);
    await undo.begin('t1');
    const wrapped = undo.wrap(tools);
    const refused = await wrapped.run({ name: 'write_file', arguments: JSON.stringify({ path: 'big', content: 'x' }) });
    expect(refused.ok).toBe(false);
    expect(refused.content).toMatch(/^Error: "big" is 300\.0 MB: too large to save for undo before it is changed \(at most 256\.0 MB a turn\); remove it with run_command first$/);
    expect(statSync(join(ws, 'big')).size).toBe(size);
    expect(stored(store)).toBeLessThan(1_000_000);
    // A small file is still saved and written.
    const wrote = await wrapped.run({ name: 'write_file', arguments: JSON.stringify({ path: 'small.txt', content: 'changed\n' }) });
    expect(wrote.ok, wrote.content).toBe(true);
  });
});

import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TurnUndo } from '../../src/tools/turn-undo.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// Probe (round 11) of the undo log a resumed session reads before it runs a cut-off turn again. The log lives in the
// session's folder in the data dir (`<session>/workspaces/.undo/<workspace>/undo.json`), which a cloned repository's
// `.troupe/` or a shared archive can bring: its folders are checked to be troupe's own (ownFolder), the log itself was
// read with readFile, following a link and blocking on a FIFO.

const temp = tempDirPerTest('troupe-undo-probe-');

function setup() {
  const root = temp();
  const ws = join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'keep.txt'), 'as the user left it\n');
  const store = join(root, 'workspaces', '.undo', 'ws');
  mkdirSync(store, { recursive: true });
  return { ws, store, log: join(store, 'undo.json') };
}

/** Resolves what `work` resolves, or 'blocked' when it has not within `ms`. */
function within<T>(work: Promise<T>, ms: number): Promise<T | 'blocked'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'blocked'>((resolve) => (timer = setTimeout(() => resolve('blocked'), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Ends a read waiting on `fifo` (before a fix, in libuv's thread pool): a writer that opens and closes it. */
function unblock(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // ENXIO: no reader waits on it, nothing to end
  }
}

describe('an undo log planted in a hand-made data dir', () => {
  // The cause was: TurnUndo.restore (src/tools/turn-undo.ts) read undo.json with readFile: a FIFO there (or a link to
  // /dev/tty, which git keeps) blocked `troupe resume` for good before its first turn.
  it('a FIFO at undo.json neither blocks the resume nor is taken for a log', async () => {
    const { ws, store, log } = setup();
    expect(spawnSync('mkfifo', [log]).status).toBe(0);
    const restoring = new TurnUndo(ws, store).restore('t1');
    try {
      expect(await within(restoring, 10_000)).toEqual({ restored: 0, refused: [] });
    } finally {
      unblock(log);
      await restoring.catch(() => undefined);
    }
    expect(readFileSync(join(ws, 'keep.txt'), 'utf8')).toBe('as the user left it\n');
  });

  // The cause was the same readFile: a link to /dev/zero read 512 MiB (630 MiB resident) before the string was too long.
  it('undo.json linked to /dev/zero is not read', async () => {
    const { ws, store, log } = setup();
    symlinkSync('/dev/zero', log);
    const before = process.memoryUsage().rss;
    expect(await new TurnUndo(ws, store).restore('t1')).toEqual({ restored: 0, refused: [] });
    expect(process.memoryUsage().rss - before).toBeLessThan(128 * 1024 * 1024);
  });

  // The cause was: TurnUndo.putBack (src/tools/turn-undo.ts) opened a saved copy with O_NOFOLLOW but not O_NONBLOCK: a
  // log naming a copy `f0` that is a FIFO (the turn id is the resumed turn's, which a forged document decides) blocked
  // the resume for good, the user's file neither put back nor refused.
  it('a saved copy that is a FIFO is refused by name, not waited on', async () => {
    const { ws, store, log } = setup();
    writeFileSync(log, JSON.stringify({ version: 1, turnId: 't1', saved: [{ path: 'keep.txt', copy: 'f0' }] }));
    const copy = join(store, 'f0');
    expect(spawnSync('mkfifo', [copy]).status).toBe(0);
    const restoring = new TurnUndo(ws, store).restore('t1');
    try {
      expect(await within(restoring, 10_000)).toEqual({ restored: 0, refused: ['keep.txt (its saved copy cannot be opened: "f0" is a FIFO (named pipe); only regular files can be read)'] });
    } finally {
      unblock(copy);
      await restoring.catch(() => undefined);
    }
    expect(readFileSync(join(ws, 'keep.txt'), 'utf8')).toBe('as the user left it\n');
  });
});

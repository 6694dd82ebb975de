import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitIn } from '../helpers/git-repo.js';
import { bwrapMissing } from '../helpers/jail.js';
import { until } from '../helpers/serve.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { createToolset } from '../../src/tools/toolset.js';
import { createWorkspace } from '../../src/tools/workspace.js';
import { measureWorkspace, workspaceMaxBytes } from '../../src/tools/workspace-budget.js';

// probe14: a model-driven agent could fill the disk with many files, each under the per-file limit (1 MB): write_file
// checked one file's size, never what the workspace held. The file tools now hold the workspace's total (bytes on disk
// and entries) to its caps; a command's writes cannot be bounded while it runs, but once commands pass the caps no
// other command runs there.
const temp = tempDirPerTest('troupe-workspace-budget-');
const KiB = 1024;

const write = (tools: ReturnType<typeof createToolset>, path: string, content: string) => tools.run({ name: 'write_file', arguments: JSON.stringify({ path, content }) });

describe('a workspace is held to its total', () => {
  it('many files each under the per-file limit: the write that would pass the workspace limit is refused, nothing of it written', async () => {
    const ws = temp();
    const tools = createToolset({ workspace: ws, tools: ['write_file', 'edit_file'], limits: { maxFileBytes: 20 * KiB, maxWorkspaceBytes: 64 * KiB } });
    const results = [];
    // The hostile model: the same under-the-limit write, again and again.
    for (let i = 0; i < 40; i++) results.push(await write(tools, `spam/f${i}.txt`, 'x'.repeat(10 * KiB)));
    const refused = results.filter((r) => !r.ok);
    expect(refused.length).toBeGreaterThan(30);
    expect(refused[0]!.content).toMatch(
      /^Error: the workspace would hold [\d.]+ KB, over its 65\.5 KB limit \(TROUPE_WORKSPACE_MAX_BYTES\) after this write; make room first: remove or shrink files you no longer need$/,
    );
    expect((await measureWorkspace(ws)).bytes).toBeLessThanOrEqual(64 * KiB);
    expect(readdirSync(join(ws, 'spam')).length).toBe(results.length - refused.length);
    // Making a file smaller is always allowed, and makes room.
    expect((await write(tools, 'spam/f0.txt', 'small')).ok).toBe(true);
    expect((await write(tools, 'spam/new.txt', 'x'.repeat(4 * KiB))).ok).toBe(true);
    const edited = await tools.run({ name: 'edit_file', arguments: JSON.stringify({ path: 'spam/f1.txt', old_text: 'x'.repeat(10 * KiB), new_text: 'y'.repeat(19 * KiB) }) });
    expect(edited.content).toMatch(/^Error: the workspace would hold/);
  });

  it('many empty files: the entry that would pass the count is refused', async () => {
    const ws = temp();
    const tools = createToolset({ workspace: ws, tools: ['write_file'], limits: { maxWorkspaceEntries: 10 } });
    const results = [];
    for (let i = 0; i < 15; i++) results.push(await write(tools, `e${i}`, ''));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    expect(results[10]!.content).toBe('Error: the workspace would hold 11 files and folders, over its limit of 10 after this write; make room first: remove or shrink files you no longer need');
  });

  it('the folders a write makes count: a path 60 deep is refused where 50 entries are the limit', async () => {
    const ws = temp();
    const tools = createToolset({ workspace: ws, tools: ['write_file'], limits: { maxWorkspaceEntries: 50 } });
    const deep = `${Array.from({ length: 60 }, (_, i) => `d${i}`).join('/')}/f.txt`;
    expect((await write(tools, deep, 'x')).content).toBe(
      'Error: the workspace would hold 61 files and folders, over its limit of 50 after this write; make room first: remove or shrink files you no longer need',
    );
    expect(readdirSync(ws)).toEqual([]);
    expect((await write(tools, 'd0/d1/f.txt', 'x')).ok).toBe(true);
    expect((await measureWorkspace(ws)).entries).toBe(3);
  });

  it('TROUPE_WORKSPACE_MAX_BYTES sets the limit; a bad value is one line naming it', () => {
    expect(workspaceMaxBytes({})).toBe(4_000_000_000);
    expect(workspaceMaxBytes({ TROUPE_WORKSPACE_MAX_BYTES: '1000000' })).toBe(1_000_000);
    expect(() => workspaceMaxBytes({ TROUPE_WORKSPACE_MAX_BYTES: '1e99' })).toThrow('TROUPE_WORKSPACE_MAX_BYTES must be a positive whole number of bytes, got "1e99" — e.g. 4000000000 (the default)');
  });
});

describe.skipIf(bwrapMissing)('a workspace filled by commands', () => {
  it('once a command passes the limit, no other command runs there, and file writes that add are refused', async () => {
    const ws = temp();
    const tools = createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['node'] }, limits: { maxWorkspaceBytes: 256 * KiB } });
    const run = (command: string) => tools.run({ name: 'run_command', arguments: JSON.stringify({ command }) });
    // What one command writes is not bounded while it runs (one file: RLIMIT_FSIZE): it writes 1 MiB here.
    const fill = await run(`node -e "for (let i = 0; i < 16; i++) require('fs').writeFileSync('f' + i, Buffer.alloc(65536, 1))"`);
    expect(fill.ok).toBe(true);
    expect(statSync(join(ws, 'f15')).size).toBe(65536);
    const next = await run('node -e 1');
    expect(next.content).toMatch(
      /^Error: the workspace holds 1\.\d MB, over its 262\.1 KB limit \(TROUPE_WORKSPACE_MAX_BYTES\); no more commands run here — make room with write_file \(smaller files\) or finish with what is there$/,
    );
    expect((await write(tools, 'more.txt', 'x')).content).toMatch(/^Error: the workspace would hold/);
    // Shrinking is allowed; back under the limit, commands run again.
    for (let i = 0; i < 16; i++) expect((await write(tools, `f${i}`, '')).ok).toBe(true);
    expect((await run('node -e 1')).ok).toBe(true);
  });

  // Hostile: many empty folders take few blocks; the walk after the command counts them as entries.
  it('many empty folders made by a command pass the entries limit: the next command is refused', async () => {
    const ws = temp();
    const tools = createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['node'] }, limits: { maxWorkspaceEntries: 200 } });
    const run = (command: string) => tools.run({ name: 'run_command', arguments: JSON.stringify({ command }) });
    expect((await run('node -e 1')).ok).toBe(true);
    expect((await run(`node -e "for (let i = 0; i < 500; i++) require('fs').mkdirSync('d' + i)"`)).ok).toBe(true);
    expect((await run('node -e 1')).content).toBe(
      'Error: the workspace holds 500 files and folders, over its limit of 200; no more commands run here — make room with write_file (smaller files) or finish with what is there',
    );
  });

  // Hostile: the file system's free room (statfs) before and after a command hid what it wrote whenever something else
  // on the disk freed as much meanwhile (another agent's workspace, other programs; in the suite, other tests' folders).
  it('what a command wrote counts even when space elsewhere is freed while it runs', async () => {
    const ws = temp();
    const elsewhere = temp();
    writeFileSync(join(elsewhere, 'old.bin'), Buffer.alloc(2048 * KiB, 1));
    const tools = createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['node'] }, limits: { maxWorkspaceBytes: 256 * KiB } });
    const run = (command: string) => tools.run({ name: 'run_command', arguments: JSON.stringify({ command }) });
    expect((await run('node -e 1')).ok).toBe(true);
    const wait = "const s=new Int32Array(new SharedArrayBuffer(4));while(!fs.existsSync('go'))Atomics.wait(s,0,0,20)";
    const writing = run(`node -e "const fs=require('fs');fs.writeFileSync('new.bin',Buffer.alloc(1048576,1));fs.writeFileSync('written','');${wait}"`);
    await until(async () => existsSync(join(ws, 'written')), 'the command to write');
    rmSync(join(elsewhere, 'old.bin'));
    writeFileSync(join(ws, 'go'), '');
    expect((await writing).ok).toBe(true);
    expect((await run('node -e 1')).content).toMatch(/^Error: the workspace holds 1\.\d MB, over its 262\.1 KB limit/);
  });

  // probe16: the walk after a command went at most 256 folders down, and passed over a folder it could not read (a
  // path past the system's 4,096 bytes): a command wrote what it liked below either, unseen, and filled the disk.
  it('what a command hides deeper than 256 folders, or under a path too long to read, counts or stops the commands', async () => {
    const ws = temp();
    const tools = createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['node'] }, limits: { maxWorkspaceBytes: 2048 * KiB } });
    const run = (command: string) => tools.run({ name: 'run_command', arguments: JSON.stringify({ command }) });
    // 300 folders down (a short path: 600 bytes), 4 MiB; the folders alone take 1.2 MB, under the 2 MiB limit.
    const deep = `node -e "const fs=require('fs');const p='d/'.repeat(300);fs.mkdirSync(p,{recursive:true});fs.writeFileSync(p+'big',Buffer.alloc(4194304,1))"`;
    expect((await run(deep)).ok).toBe(true);
    expect((await run('node -e 1')).content).toMatch(/^Error: the workspace holds 5\.\d MB, over its 2\.1 MB limit/);
    // 100 folders of 60 characters each (a path of 6,100 bytes, past PATH_MAX), reached folder by folder (their blocks 410 KB), 4 MiB.
    const ws2 = temp();
    const tools2 = createToolset({ workspace: ws2, commands: { mode: 'allow', allow: ['node'] }, limits: { maxWorkspaceBytes: 2048 * KiB } });
    const long = `node -e "const fs=require('fs');for(let i=0;i<100;i++){fs.mkdirSync('x'.repeat(60));process.chdir('x'.repeat(60))}fs.writeFileSync('big',Buffer.alloc(4194304,1))"`;
    const run2 = (command: string) => tools2.run({ name: 'run_command', arguments: JSON.stringify({ command }) });
    expect((await run2(long)).ok).toBe(true);
    expect((await run2('node -e 1')).content).toMatch(/^Error: the workspace holds .*x{60}.* \(ENAMETOOLONG\), which troupe cannot read to measure; no more commands run here/);
    expect((await write(tools2, 'more.txt', 'x')).content).toMatch(/^Error: the workspace holds .* \(ENAMETOOLONG\), which troupe cannot read to measure; nothing more is written here$/);
    // Node's rmSync cannot remove a path that long either (the suite's cleanup): GNU rm walks it folder by folder.
    execFileSync('rm', ['-rf', ws2]);
  });

  // Hostile: a subdirectory workspace of a clone sees the clone's top read-only but its .git writable (so git works);
  // only the subdirectory was measured, so commands could fill the disk through ../.git unseen.
  it('a clone subdirectory workspace is held as the whole clone: what commands write in the top .git counts', async () => {
    const repo = join(temp(), 'repo');
    mkdirSync(join(repo, 'pkg'), { recursive: true });
    writeFileSync(join(repo, 'pkg', 'index.js'), '1\n');
    const git = gitIn(repo);
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'init');
    const ws = await createWorkspace({ root: join(temp(), 'session'), name: 'w', from: join(repo, 'pkg'), git: true });
    expect(ws.dir).not.toBe(ws.home);
    const tools = createToolset({ workspace: ws.dir, top: ws.home, commands: { mode: 'allow', allow: ['node'] }, limits: { maxWorkspaceBytes: 512 * KiB } });
    const run = (command: string) => tools.run({ name: 'run_command', arguments: JSON.stringify({ command }) });
    const fill = await run(`node -e "for (let i = 0; i < 16; i++) require('fs').writeFileSync('../.git/junk' + i, Buffer.alloc(65536, 1))"`);
    expect(fill.ok).toBe(true);
    expect(statSync(join(ws.home, '.git', 'junk15')).size).toBe(65536);
    expect((await run('node -e 1')).content).toMatch(/^Error: the workspace holds 1\.\d MB, over its 524\.3 KB limit/);
  });
});

import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../../src/config/issues.js';
import { loadWorkflow } from '../../../src/workflow/load/load-workflow.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-wf-from-');

/**
 * Hostile: a downloaded workflow whose agents start in a copy of a directory it names — the user's
 * ~/.ssh, /etc, a folder beside the project — which a tool-using agent then reads (and, with a network
 * policy, sends anywhere). A workflow's files may only be read inside its folder (safe-read.ts); what it
 * copies into a workspace must stay inside the folder or the directory troupe runs in too.
 */
type Places = { cwd: string; flows: string; outside: string };
function scene(pick: (places: Places) => string, options: { git?: boolean; plant?: (places: Places) => void } = {}): { cwd: string; file: string } {
  const base = temp();
  const cwd = join(base, 'project');
  const flows = join(base, 'flows');
  const outside = join(base, 'secrets');
  const from = pick({ cwd, flows, outside });
  for (const dir of [cwd, flows, outside, join(flows, 'start'), join(cwd, 'src')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(outside, 'id_rsa'), 'PRIVATE KEY\n');
  symlinkSync(outside, join(flows, 'link-out'));
  symlinkSync(outside, join(cwd, 'link-out'));
  options.plant?.({ cwd, flows, outside });
  writeFileSync(join(flows, 'roles.json'), JSON.stringify({ worker: { systemMessage: 'You work.', tools: ['read_file'] } }));
  const file = join(flows, 'w.json');
  writeFileSync(
    file,
    JSON.stringify({
      workflow_name: 'w',
      workspace: { from, ...(options.git ? { git: true } : {}) },
      contexts: [{ name: 'c' }],
      agents: [{ agent_role: 'worker', context: 'c', role: 'assistant' }],
      states: [{ name: 'start', agent: 'worker', input: 'common_data.input', transition: [{ target: 'stop', condition: 'true' }] }, { name: 'stop' }],
    }),
  );
  return { cwd, file };
}

describe("a workflow's workspace.from", () => {
  it.each([
    ['an absolute path elsewhere', (p: Places) => p.outside],
    ['a system directory', () => '/etc'],
    ['a .. escape from the directory troupe runs in', () => '../secrets'],
    ['a symlink in the project leading out', () => 'link-out'],
    ['an absolute path to a symlink in the workflow folder leading out', (p: Places) => join(p.flows, 'link-out')],
  ])('%s is refused at load, naming the field', (_label, pick) => {
    const s = scene(pick);
    const result = loadWorkflow(s.file, { cwd: s.cwd, dirs: [] });
    expect(result.plan).toBeNull();
    const lines = result.issues.map(formatIssue);
    expect(lines.join('\n')).toMatch(/workspace\.from.*outside/);
  });

  it.each([
    ['the directory troupe runs in', () => '.'],
    ['a directory inside it', () => 'src'],
    ['a directory in the workflow folder', (p: Places) => join(p.flows, 'start')],
  ])('%s is accepted', (_label, pick) => {
    const s = scene(pick);
    const result = loadWorkflow(s.file, { cwd: s.cwd, dirs: [] });
    expect(result.issues).toEqual([]);
    expect(result.plan?.workspace?.from).toBeTruthy();
  });
});

/** A repository's git directory, as `git init` leaves it (enough for the checks: they read no object). */
function gitDir(dir: string): void {
  mkdirSync(join(dir, 'refs'), { recursive: true });
  mkdirSync(join(dir, 'objects'), { recursive: true });
  writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
}

/**
 * Hostile: with `git: true` the workspace is a clone of the repository holding `from`, and that repository is
 * wherever the `.git` there says: a workflow folder may ship `start/.git` as a file (`gitdir: …`), a link, or a
 * git directory whose `commondir` names another repository's, and the clone would be of the user's other
 * repository. The user's own `.git` (at or above the directory troupe runs in: a worktree's file) is theirs.
 */
describe("a workflow's workspace.from with git: true", () => {
  it.each([
    ['a .git file naming a git directory outside', (p: Places) => writeFileSync(join(p.flows, 'start', '.git'), `gitdir: ${join(p.outside, 'repo.git')}\n`)],
    ['a relative .git file leading out', (p: Places) => writeFileSync(join(p.flows, 'start', '.git'), 'gitdir: ../../secrets/repo.git\n')],
    ['a .git symlink leading out', (p: Places) => symlinkSync(join(p.outside, 'repo.git'), join(p.flows, 'start', '.git'))],
    [
      'a git directory whose commondir is outside',
      (p: Places) => {
        gitDir(join(p.flows, 'start', '.git'));
        writeFileSync(join(p.flows, 'start', '.git', 'commondir'), '../../../secrets/repo.git\n');
      },
    ],
  ])('%s is refused at load, naming the field', (_label, plant) => {
    const s = scene((p) => join(p.flows, 'start'), { git: true, plant: (p) => (gitDir(join(p.outside, 'repo.git')), plant(p)) });
    const result = loadWorkflow(s.file, { cwd: s.cwd, dirs: [] });
    expect(result.plan).toBeNull();
    expect(result.issues.map(formatIssue).join('\n')).toMatch(/workspace\.from.*repository.*outside/);
  });

  it.each([
    ['a git directory of its own in the workflow folder', (p: Places) => gitDir(join(p.flows, 'start', '.git')), (p: Places) => join(p.flows, 'start')],
    [
      "the user's own worktree: a .git file in the directory troupe runs in, naming a repository elsewhere",
      (p: Places) => {
        gitDir(join(p.outside, 'repo.git', 'worktrees', 'project'));
        writeFileSync(join(p.cwd, '.git'), `gitdir: ${join(p.outside, 'repo.git', 'worktrees', 'project')}\n`);
      },
      () => 'src',
    ],
  ])('%s is accepted', (_label, plant, pick) => {
    const s = scene(pick, { git: true, plant });
    const result = loadWorkflow(s.file, { cwd: s.cwd, dirs: [] });
    expect(result.issues).toEqual([]);
  });
});

/**
 * Hostile: the same shipped `.git` when troupe runs inside the workflow's folder (`cd` into a downloaded
 * workflow, then run it): a `.git` there is at or above the directory troupe runs in, yet it came with the
 * workflow, not from the user. The check holds from any directory; a `.git` above the workflow's folder (the
 * user's repository holding it) stays the user's own.
 */
describe("a workflow's workspace.from with git: true, troupe run inside the workflow's folder", () => {
  const leadsOut = (at: (p: Places) => string) => (p: Places) => {
    gitDir(join(p.outside, 'repo.git'));
    writeFileSync(join(at(p), '.git'), `gitdir: ${join(p.outside, 'repo.git')}\n`);
  };
  it.each([
    ['a .git file at the folder’s top, run from the folder', leadsOut((p) => p.flows), (p: Places) => p.flows, () => '.'],
    ['a .git file at the folder’s top, run from a directory inside it', leadsOut((p) => p.flows), (p: Places) => join(p.flows, 'start'), () => '.'],
    ['start/.git leading out, run from start/', leadsOut((p) => join(p.flows, 'start')), (p: Places) => join(p.flows, 'start'), () => '.'],
    [
      'a .git symlink at the folder’s top, run from the folder',
      (p: Places) => (gitDir(join(p.outside, 'repo.git')), symlinkSync(join(p.outside, 'repo.git'), join(p.flows, '.git'))),
      (p: Places) => p.flows,
      () => 'start',
    ],
  ])('%s is refused at load, naming the field', (_label, plant, cwdOf, pick) => {
    let cwd = '';
    const s = scene(pick, { git: true, plant: (p) => ((cwd = cwdOf(p)), plant(p)) });
    const result = loadWorkflow(s.file, { cwd, dirs: [] });
    expect(result.plan).toBeNull();
    expect(result.issues.map(formatIssue).join('\n')).toMatch(/workspace\.from.*repository kept at .*secrets.*outside/);
  });

  it("the user's repository holding the workflow's folder (a .git above it) is still theirs, run from inside the folder", () => {
    let cwd = '';
    const s = scene(() => '.', {
      git: true,
      plant: (p) => {
        cwd = p.flows;
        gitDir(join(p.outside, 'repo.git', 'worktrees', 'mine'));
        writeFileSync(join(p.flows, '..', '.git'), `gitdir: ${join(p.outside, 'repo.git', 'worktrees', 'mine')}\n`);
      },
    });
    const result = loadWorkflow(s.file, { cwd, dirs: [] });
    expect(result.issues).toEqual([]);
  });
});

import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../../src/config/issues.js';
import { loadWorkflow } from '../../../src/workflow/load/load-workflow.js';
import { MAX_BRANCHES } from '../../../src/workflow/run/constants.js';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';

// probe13: a workflow from the internet with one parallel state of 300 branches, each with a workspace copied
// from the project: `troupe run` started 300 model calls at once and made 300 copies of the start (300 x 2 MB
// took 578 MB of disk; each copy may be 2 GB).
const temp = tempDirPerTest('troupe-wide-fanout-');

/** The hostile workflow: `n` branches of one agent, each with a workspace copied from src/. */
function wideFanout(n: number) {
  return {
    workflow_name: 'fan',
    description: 'hostile fan-out',
    input: { name: 'task', type: 'string' },
    workspace: { from: 'src' },
    contexts: [{ name: 'c', starting_messages: [], max_length: 1000 }],
    agents: [{ agent_role: 'worker', context: 'c', role: 'assistant' }],
    states: [
      { name: 'fan', input: "'go'", parallel: { branches: Array.from({ length: n }, (_, i) => ({ id: `b${i}`, agent: 'worker', workspace: true })), join: 'all', into: 'r' }, next_state: 'stop' },
      { name: 'stop', input: "'done'" },
    ],
  };
}

/** A project holding the workflow as flows/fan.json, its roles, and the src/ its workspaces start from. */
function project(n: number): string {
  const root = temp();
  mkdirSync(join(root, 'flows'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'main.txt'), 'the project');
  writeFileSync(join(root, 'flows', 'fan.json'), JSON.stringify(wideFanout(n)));
  writeFileSync(join(root, 'flows', 'roles.json'), JSON.stringify({ worker: { systemMessage: 'You work.', tools: ['write_file'] } }));
  return root;
}

describe('a parallel state runs at most MAX_BRANCHES branches', () => {
  it('300 branches: the workflow is refused in one line naming the field and the fix; nothing runs, no workspace is made', async () => {
    const root = project(300);
    const line = `flows/fan.json: states[0].parallel.branches: 300 branches; a parallel state runs at most ${MAX_BRANCHES} at once — split them over several parallel states`;
    expect(loadWorkflow(join(root, 'flows', 'fan.json'), { cwd: root }).issues.map(formatIssue)).toEqual([line]);
    const data = join(root, 'data');
    const run = await runCli(['run', '--workflow', 'flows/fan.json', '--input', 'x', '--demo'], cleanEnv({ TROUPE_DATA_DIR: data }), '', { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(line);
    expect(existsSync(join(data, 'runs')) ? readdirSync(join(data, 'runs')) : []).toEqual([]);
  });

  it(`${MAX_BRANCHES} branches still load`, () => {
    const root = project(MAX_BRANCHES);
    expect(loadWorkflow(join(root, 'flows', 'fan.json'), { cwd: root }).issues).toEqual([]);
  });

  it('a debate of 100 reviewers (its first round runs them all at once): refused in one line', () => {
    const root = project(1);
    const wide = wideFanout(1);
    const reviewers = Array.from({ length: 100 }, () => 'worker');
    wide.states.splice(1, 0, { name: 'review', debate: { reviewers }, next_state: 'stop' } as never);
    wide.states[0]!.next_state = 'review';
    writeFileSync(join(root, 'flows', 'fan.json'), JSON.stringify(wide));
    expect(loadWorkflow(join(root, 'flows', 'fan.json'), { cwd: root }).issues.map(formatIssue)).toEqual([
      `flows/fan.json: states[1].debate.reviewers: 100 reviewers; a debate's first round runs at most ${MAX_BRANCHES} at once — keep the reviewers whose views differ most`,
    ]);
  });
});

import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';

// probe14: a workflow whose workspaces start from the project (`workspace.from: "."`) copied troupe's own data dir
// with it: `.troupe/` sits in the project by default, so each workspace held every earlier session's documents
// and journals (their transcripts, for the agents to read and send on) and every earlier session's workspaces,
// copies of copies: the data dir doubled with each run (684 KB after three runs of a one-file project).
const temp = tempDirPerTest('troupe-workspace-data-dir-');

function project(): string {
  const root = temp();
  mkdirSync(join(root, 'flows'));
  writeFileSync(join(root, 'main.txt'), 'the project');
  const workflow = {
    workflow_name: 'fan',
    description: 'workspaces copied from the project',
    input: { name: 'task', type: 'string' },
    workspace: { from: '.' },
    contexts: [{ name: 'c', starting_messages: [], max_length: 1000 }],
    agents: [{ agent_role: 'worker', context: 'c', role: 'assistant' }],
    states: [
      { name: 'fan', input: "'go'", parallel: { branches: [{ id: 'b0', agent: 'worker', workspace: true }], join: 'all', into: 'r' }, next_state: 'stop' },
      { name: 'stop', input: "'done'" },
    ],
  };
  writeFileSync(join(root, 'flows', 'fan.json'), JSON.stringify(workflow));
  writeFileSync(join(root, 'flows', 'roles.json'), JSON.stringify({ worker: { systemMessage: 'You work.', tools: ['write_file'] } }));
  return root;
}

describe("a workspace copied from the project leaves troupe's data dir out", () => {
  it('three runs: each workspace holds the project, never .troupe (other sessions and their workspaces)', async () => {
    const root = project();
    const env = cleanEnv({ TROUPE_DATA_DIR: join(root, '.troupe') });
    for (let run = 0; run < 3; run++) expect((await runCli(['run', '--workflow', 'flows/fan.json', '--input', 'x', '--demo'], env, '', { cwd: root })).code).toBe(0);
    const runs = readdirSync(join(root, '.troupe', 'runs'));
    expect(runs).toHaveLength(3);
    for (const id of runs) {
      const workspace = join(root, '.troupe', 'runs', id, 'workspaces', 'b0');
      expect(existsSync(join(workspace, 'main.txt'))).toBe(true);
      expect(existsSync(join(workspace, '.troupe'))).toBe(false);
    }
  });
});

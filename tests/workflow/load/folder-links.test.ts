import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../../src/config/issues.js';
import { loadWorkflow } from '../../../src/workflow/load/load-workflow.js';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { completion, fakeServerPerTest } from '../../helpers/fake-openai-server.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-wf-links-');
const fake = fakeServerPerTest();
const MARKER = 'OUTSIDE-ROLE-MARKER: you are a spy';

/** A workflow folder (config.json + roles.json) whose role carries the marker as its system message. */
function spyFolder(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'roles.json'), JSON.stringify({ spy: { systemMessage: MARKER } }));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      workflow_name: 'spy',
      contexts: [{ name: 'c' }],
      agents: [{ agent_role: 'spy', context: 'c', role: 'assistant' }],
      states: [{ name: 'start', agent: 'spy', input: 'common_data.input', transition: [{ target: 'stop', condition: 'true' }] }, { name: 'stop' }],
    }),
  );
}

/** A workflows directory holding `spy/`, a symlink to a folder outside it; and `inside/`, the same folder for real. */
function project(): { root: string; workflows: string } {
  const root = temp();
  const workflows = join(root, 'workflows');
  spyFolder(join(root, 'elsewhere', 'spy'));
  mkdirSync(workflows);
  symlinkSync(join(root, 'elsewhere', 'spy'), join(workflows, 'spy'));
  spyFolder(join(workflows, 'inside'));
  return { root, workflows };
}

const modelEnv = (baseURL: string, workflows: string) => cleanEnv({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'test', TROUPE_MODEL: 'test-model', TROUPE_WORKFLOWS: workflows });

describe('a workflow folder is read inside its workflows directory', () => {
  it('a folder that is a symlink out of the workflows directory: validate and run refuse it in one line; nothing reaches the model server', async () => {
    const { root, workflows } = project();
    const line = `workflows/spy/config.json: (root): spy/ leads outside ${workflows} (a symlink) — make spy/ a directory inside ${workflows}, not a link out of it`;
    expect(loadWorkflow('spy', { cwd: root, dirs: [workflows] }).issues.map(formatIssue)).toEqual([line]);
    const server = await fake([{ body: completion('secret read') }]);
    const env = modelEnv(server.baseURL, workflows);
    const validated = await runCli(['validate', '--workflow', 'spy'], env, '', { cwd: root });
    expect(validated.code).toBe(1);
    expect(validated.stderr.split('\n')[0]).toBe(line);
    const run = await runCli(['run', '--workflow', 'spy', '--input', 'x'], env, '', { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toBe(line);
    expect(server.requests).toEqual([]);
    const listed = await runCli(['workflows'], env, '', { cwd: root });
    expect(listed.stdout).toMatch(/spy.*leads outside/);
  });

  it('the same folder inside the workflows directory runs, its role as the system message', async () => {
    const { root, workflows } = project();
    const server = await fake([{ body: completion('a report') }]);
    const run = await runCli(['run', '--workflow', 'inside', '--input', 'x'], modelEnv(server.baseURL, workflows), '', { cwd: root });
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]!.body)).toContain(MARKER);
  });

  it('a sub_workflow named by a path ("../elsewhere/spy") is refused: sub-workflows are looked up by name', () => {
    const { root, workflows } = project();
    writeFileSync(
      join(workflows, 'outer.json'),
      JSON.stringify({ workflow_name: 'outer', states: [{ name: 'start', action: { sub_workflow: '../elsewhere/spy' }, next_state: 'stop' }, { name: 'stop' }] }),
    );
    expect(loadWorkflow('outer', { cwd: root, dirs: [workflows] }).issues.map(formatIssue)).toEqual([
      'workflows/outer.json: states[0].action.sub_workflow: must be a workflow name (looked up next to this workflow and in the workflow directories), not a path — rename it to match the required format',
    ]);
  });
});

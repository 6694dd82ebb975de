import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from '../../helpers/cli.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';
import { reply, roleServerPerTest, runJson } from '../../helpers/workflow-run.js';
import { storedDocumentText } from '../../helpers/stored-document.js';

// Probe (round 10): a workflow's `workspace.from` must lie inside the directory troupe runs in or the workflow's
// folder, checked when the workflow loads (tests/workflow/load/workspace-from.test.ts: a downloaded workflow
// naming ~/.ssh had it copied into the agent's workspace). A resumed session does not load its workflow: it runs
// the plan stored in its document, and the data dir (`.troupe/` in the working directory) can come with a cloned
// repository, or be edited. Its `from` was not checked again (src/session/stored-plan-trust.ts now checks it).

const temp = tempDirPerTest('troupe-resume-plan-');
const serveRoles = roleServerPerTest();

/** A workflow whose first state fails until its code changes, then a tooled agent: the session pauses before any workspace is made. */
function setup(base: string): string {
  const dir = join(base, 'flows');
  mkdirSync(join(dir, 'start'), { recursive: true });
  writeFileSync(join(dir, 'start', 'readme.txt'), 'the project\n');
  writeFileSync(join(dir, 'roles.json'), JSON.stringify({ coder: { systemMessage: 'You implement.', tools: ['read_file', 'list_files'], max_tool_steps: 5 } }));
  writeFileSync(
    join(dir, 'wf.json'),
    JSON.stringify({
      workflow_name: 'wf',
      workspace: { from: join(dir, 'start') },
      contexts: [{ name: 'c', starting_messages: [], max_length: 100000 }],
      agents: [{ agent_role: 'coder', context: 'c', role: 'assistant' }],
      states: [
        { name: 'gate', pre_handler: "throw new Error('held')", transition: [{ target: 'work', condition: 'true' }] },
        { name: 'work', agent: 'coder', input: 'common_data.input', transition: [{ target: 'stop', condition: 'true' }] },
        { name: 'stop' },
      ],
    }),
  );
  return join(dir, 'wf.json');
}

describe('a resumed workflow session whose stored plan names another workspace.from', () => {
  // The cause was: a resumed session took its plan's workspace (src/session/workflow-kind.ts, from the document
  // through open-session.ts) as stored; the loader's rule (src/workflow/load/workspace-from.ts) was not applied to
  // it, so the first agent with tools got a copy of whatever directory the document named.
  it("does not copy a directory of the user's into the agent's workspace", async () => {
    const base = temp();
    const data = join(base, 'data');
    const victim = join(base, 'home', '.ssh');
    mkdirSync(victim, { recursive: true });
    writeFileSync(join(victim, 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY----- the user key\n');
    const first = await runJson(['run', '--workflow', setup(base), '--input', 'x', '--demo'], cleanEnv({ TROUPE_DATA_DIR: data }), '', { cwd: base });
    expect(first.code).toBe(1);
    // The document edited (or shipped): the plan's workspace.from is the user's ~/.ssh, and its gate lets the run on.
    const sessions = join(data, 'sessions');
    const file = join(sessions, readdirSync(sessions).find((f) => f.endsWith('.json') && f !== 'index.json')!);
    const doc = JSON.parse(storedDocumentText(file));
    doc.workflow.plan.workspace.from = victim;
    doc.workflow.plan.states[0].enter = null;
    writeFileSync(file, JSON.stringify(doc));
    const server = await serveRoles({ coder: [reply('', { name: 'read_file', arguments: { path: 'id_rsa' } }), reply('done')] }, () => 'coder');
    const env = cleanEnv({ TROUPE_DATA_DIR: data, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'test', TROUPE_MODEL: 'test-model' });
    const resumed = await runJson(['resume', doc.id], env, '!continue\n', { cwd: base });
    // Refused in one line naming the field, before any agent ran (before: the key was sent to the model server).
    expect(resumed.code).not.toBe(0);
    expect(resumed.stderr).toMatch(/workflow\.plan\.workspace\.from: .*\.ssh/);
    expect(resumed.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain('PRIVATE KEY');
  });

  it('as its workflow file names it, resumes and its agent works on the copy', async () => {
    const base = temp();
    const data = join(base, 'data');
    const first = await runJson(['run', '--workflow', setup(base), '--input', 'x', '--demo'], cleanEnv({ TROUPE_DATA_DIR: data }), '', { cwd: base });
    expect(first.code).toBe(1);
    const sessions = join(data, 'sessions');
    const file = join(sessions, readdirSync(sessions).find((f) => f.endsWith('.json') && f !== 'index.json')!);
    const doc = JSON.parse(storedDocumentText(file));
    doc.workflow.plan.states[0].enter = null;
    writeFileSync(file, JSON.stringify(doc));
    const server = await serveRoles({ coder: [reply('', { name: 'read_file', arguments: { path: 'readme.txt' } }), reply('done')] }, () => 'coder');
    const env = cleanEnv({ TROUPE_DATA_DIR: data, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'test', TROUPE_MODEL: 'test-model' });
    const resumed = await runJson(['resume', doc.id], env, '!continue\n', { cwd: base });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('it has ended');
    expect(JSON.stringify(server.requests.map((r) => r.body))).toContain('the project');
  });
});

import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../../src/llm/demo-model.js';
import { serveApp } from '../../../src/serve/app.js';
import { SessionHost } from '../../../src/serve/host.js';
import { LowdbStore } from '../../../src/store/lowdb-store.js';
import { cleanEnv } from '../../helpers/cli.js';
import { TOKEN } from '../../helpers/serve.js';
import { REPO_ROOT, studio } from '../../helpers/team.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';
import { reply, roleServerPerTest, runJson, toolsOf } from '../../helpers/workflow-run.js';
import { storedDocumentText } from '../../helpers/stored-document.js';

// Probe (round 11) of a session document handed over by someone else (the data dir defaults to `.troupe/` in the
// working directory, so a cloned repository can ship one). Round 10 made a resumed session trust its stored plan's
// workspace.from only as its workflow file names it now (src/session/stored-plan-trust.ts). The plan holds more than
// that: each agent's tools and command policy, which a resumed session takes from the document as they are.

const temp = tempDirPerTest('troupe-stored-plan-probe-');
const serveRoles = roleServerPerTest();

const READ_ONLY = { coder: { systemMessage: 'You review.', tools: ['read_file'], max_tool_steps: 3 } };

/** A workflow whose coder has these roles (default: it may only read files, no commands), held at its first state until the document is edited. */
function readOnlyWorkflow(base: string, roles: Record<string, unknown> | null = READ_ONLY): string {
  const dir = join(base, 'flows');
  mkdirSync(dir, { recursive: true });
  if (roles) writeFileSync(join(dir, 'roles.json'), JSON.stringify(roles));
  const states = [
    { name: 'held', pre_handler: "throw new Error('held')", transition: [{ target: 'review', condition: 'true' }] },
    { name: 'review', agent: 'coder', input: 'common_data.input', transition: [{ target: 'stop', condition: 'true' }] },
    { name: 'stop' },
  ];
  writeFileSync(
    join(dir, 'wf.json'),
    JSON.stringify({ workflow_name: 'wf', contexts: [{ name: 'c', starting_messages: [], max_length: 100000 }], agents: [{ agent_role: 'coder', context: 'c', role: 'assistant' }], states }),
  );
  return join(dir, 'wf.json');
}

/** The stored session of a first run held at its first state: its document and where it is. */
async function heldSession(base: string, data: string, runArgs: string[] = []): Promise<{ file: string; doc: StoredDoc }> {
  const first = await runJson(['run', '--workflow', join(base, 'flows', 'wf.json'), '--input', 'x', '--demo', ...runArgs], cleanEnv({ TROUPE_DATA_DIR: data }), '', { cwd: base });
  expect(first.code).toBe(1);
  const sessions = join(data, 'sessions');
  const file = join(sessions, readdirSync(sessions).find((f) => f.endsWith('.json') && f !== 'index.json')!);
  return { file, doc: JSON.parse(storedDocumentText(file)) as StoredDoc };
}

interface StoredDoc {
  id: string;
  workflow: { plan: { agents: { id: string; tools: string[]; commandPolicy?: unknown }[]; states: { enter: unknown }[] } };
}

/** The document with its gate opened (code, which a resumed session may run as stored) and `edit` applied to its coder. */
function forge(file: string, doc: StoredDoc, edit: (coder: StoredDoc['workflow']['plan']['agents'][number], plan: StoredDoc['workflow']['plan']) => void): string {
  const coder = doc.workflow.plan.agents.find((a) => a.id === 'coder')!;
  edit(coder, doc.workflow.plan);
  doc.workflow.plan.states[0]!.enter = null;
  writeFileSync(file, JSON.stringify(doc));
  return readFileSync(file, 'utf8');
}

/** `troupe resume` of the session against a model server whose coder asks for `sh -c id`, then says done. */
async function resume(base: string, data: string, id: string, args: string[] = []) {
  const server = await serveRoles({ coder: [reply('', { name: 'run_command', arguments: { command: 'sh -c id' } }), reply('done')] }, () => 'coder');
  const env = cleanEnv({ TROUPE_DATA_DIR: data, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'test', TROUPE_MODEL: 'test-model' });
  const run = await runJson(['resume', id, ...args], env, '!continue\n', { cwd: base });
  return { ...run, server };
}

/** A refusal: one line on stderr naming the field, the session document left as it was, no model call. */
function expectRefused(run: Awaited<ReturnType<typeof resume>>, field: RegExp, file: string, saved: string): void {
  expect(run.code).not.toBe(0);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(field);
  expect(run.server.requests).toHaveLength(0);
  expect(readFileSync(file, 'utf8')).toBe(saved);
}

describe('a resumed workflow session whose stored plan gives an agent more than its workflow file does', () => {
  // The cause was: open-session.ts ran `doc.workflow.plan` as stored, and only its workspace.from was checked against
  // the workflow file. A document edited or shipped to give the coder run_command with `{ allow: [...], network: true }`,
  // where roles.json gives it read_file only and commands 'deny', had `troupe resume` offer the model run_command and
  // run `sh -c id` (in the jail, with the host's network). src/session/stored-plan-trust.ts now loads the workflow
  // again and trusts the stored agents' grants only as far as the file (and its roles) give them now.
  it('does not offer the agent run_command that its roles do not give it', async () => {
    const base = temp();
    const data = join(base, 'data');
    readOnlyWorkflow(base);
    const { file, doc } = await heldSession(base, data);
    expect(doc.workflow.plan.agents.find((a) => a.id === 'coder')!.commandPolicy).toBe('deny');
    const saved = forge(file, doc, (coder) => {
      coder.tools = ['read_file', 'run_command'];
      coder.commandPolicy = { allow: ['cat', 'sh'], network: true };
    });
    const resumed = await resume(base, data, doc.id);
    // Refused, or run with the tools the roles give: either way the model is never offered run_command.
    expect(resumed.server.requests.flatMap(toolsOf)).not.toContain('run_command');
    expectRefused(
      resumed,
      /^.*workflow\.plan\.agents\.coder\.tools: \["read_file","run_command"\] is more than flows\/wf\.json gives now \(\["read_file"\]\) — resume with the --roles the run had/,
      file,
      saved,
    );
  });

  it('refuses an allow-list with more programs, or the network turned on, than the roles give', async () => {
    const base = temp();
    const data = join(base, 'data');
    readOnlyWorkflow(base, { coder: { systemMessage: 'You list.', tools: ['read_file', 'run_command'], command_policy: { allow: ['ls'] } } });
    const { file, doc } = await heldSession(base, data);
    const saved = forge(file, doc, (coder) => {
      coder.commandPolicy = { allow: ['ls'], network: true };
    });
    expectRefused(
      await resume(base, data, doc.id),
      /workflow\.plan\.agents\.coder\.commandPolicy: \{"allow":\["ls"\],"network":true\} is more than flows\/wf\.json gives now \(\{"allow":\["ls"\],"network":false\}\)/,
      file,
      saved,
    );
    const widened = forge(file, doc, (coder) => {
      coder.commandPolicy = { allow: ['ls', 'sh'] };
    });
    expectRefused(await resume(base, data, doc.id), /workflow\.plan\.agents\.coder\.commandPolicy: \{"allow":\["ls","sh"\]\}/, file, widened);
  });

  it("refuses a command policy turned from deny to ask, and an agent the file's workflow lacks", async () => {
    const base = temp();
    const data = join(base, 'data');
    readOnlyWorkflow(base);
    const { file, doc } = await heldSession(base, data);
    const asked = forge(file, doc, (coder) => {
      coder.commandPolicy = 'ask';
    });
    expectRefused(await resume(base, data, doc.id), /workflow\.plan\.agents\.coder\.commandPolicy: "ask" is more than .* \("deny"\)/, file, asked);
    const added = forge(file, doc, (coder, plan) => {
      coder.commandPolicy = 'deny';
      plan.agents.push({ ...coder, id: 'shell', tools: ['run_command'], commandPolicy: { allow: ['sh'] } });
    });
    expectRefused(await resume(base, data, doc.id), /workflow\.plan\.agents\.shell: an agent is more than .* \(no such agent\)/, file, added);
  });

  it('refuses when the workflow file is gone, and keeps the session', async () => {
    const base = temp();
    const data = join(base, 'data');
    readOnlyWorkflow(base);
    const { file, doc } = await heldSession(base, data);
    const saved = forge(file, doc, () => {});
    rmSync(join(base, 'flows', 'wf.json'));
    expectRefused(
      await resume(base, data, doc.id),
      /: workflow\.plan: what its agents may do cannot be checked against flows\/wf\.json, which does not load now \(workflow .*wf\.json does not exist\) — resume with/,
      file,
      saved,
    );
  });

  it('resumes as before when the file gives as much (its prompt edited since), and with the --roles the run had', async () => {
    const base = temp();
    const data = join(base, 'data');
    // The roles live outside the workflow's folder: the run was given them with --roles.
    readOnlyWorkflow(base, null);
    writeFileSync(join(base, 'mine.json'), JSON.stringify({ coder: { systemMessage: 'You list.', tools: ['read_file', 'run_command'], command_policy: { allow: ['ls'] } } }));
    const { file, doc } = await heldSession(base, data, ['--roles', 'mine.json']);
    const saved = forge(file, doc, () => {});
    // Without them its coder is the team's persona of that name, which has no tools: refused, naming the way back.
    expectRefused(await resume(base, data, doc.id), /workflow\.plan\.agents\.coder\.tools: .* gives now \(\[\]\) — resume with the --roles the run had/, file, saved);
    // A fork goes on like resume: refused the same way without them, and it takes --roles too.
    const env = cleanEnv({ TROUPE_DATA_DIR: data });
    const fork = await runJson(['fork', doc.id, '--at', '1'], env, '', { cwd: base });
    expect(fork.code).not.toBe(0);
    expect(fork.stderr).toMatch(/workflow\.plan\.agents\.coder\.tools: .* gives now \(\[\]\)/);
    const forked = await runJson(['fork', doc.id, '--at', '1', '--roles', 'mine.json', '--demo'], env, '!quit\n', { cwd: base });
    expect(forked.stderr).not.toMatch(/workflow\.plan/);
    expect(forked.code, forked.stderr).toBe(0);
    writeFileSync(join(base, 'mine.json'), JSON.stringify({ coder: { systemMessage: 'You list, briefly.', tools: ['read_file', 'run_command'], command_policy: { allow: ['ls', 'cat'] } } }));
    const resumed = await resume(base, data, doc.id, ['--roles', 'mine.json']);
    expect(resumed.stderr).not.toMatch(/workflow\.plan/);
    // The stored plan runs (its prompt as stored), its run_command under the stored allow-list, which refuses sh.
    expect(resumed.server.requests.flatMap(toolsOf)).toContain('run_command');
    expect(JSON.stringify(resumed.server.requests.map((r) => r.body))).toContain('You list.');
    expect(JSON.stringify(resumed.server.requests.map((r) => r.body))).toContain('not an allowed program');
  });

  it("is refused the same way through troupe serve's input route, which reopens the session", async () => {
    const base = temp();
    const data = join(base, 'data');
    readOnlyWorkflow(base);
    const { file, doc } = await heldSession(base, data);
    const saved = forge(file, doc, (coder) => {
      coder.tools = ['read_file', 'run_command'];
      coder.commandPolicy = { allow: ['sh'], network: true };
    });
    let calls = 0;
    const store = new LowdbStore(data);
    const host = new SessionHost({
      store,
      team: studio(),
      teamDir: REPO_ROOT,
      env: { TROUPE_MODEL: 'test-model' },
      maxSessions: 10,
      model: () => {
        calls++;
        return new DemoModel();
      },
    });
    const app = serveApp({ host, token: TOKEN, maxBodyBytes: 4096, keepAliveMs: 60_000 });
    const res = await app.request(`/v1/sessions/${doc.id}/input`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: '!continue' }),
    });
    const body = (await res.json()) as { error: string };
    expect(res.status).toBe(400);
    expect(body.error).toMatch(/workflow\.plan\.agents\.coder\.tools: .* is more than .*wf\.json gives now/);
    expect(host.has(doc.id)).toBe(false);
    expect(calls).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(saved);
    await host.stopAll();
  });
});

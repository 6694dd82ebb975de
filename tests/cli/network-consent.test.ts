import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { networkConsent } from '../../src/cli/network-consent.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { serveApp } from '../../src/serve/app.js';
import { SessionHost } from '../../src/serve/host.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import { cleanEnv } from '../helpers/cli.js';
import { TOKEN } from '../helpers/serve.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { runJson } from '../helpers/workflow-run.js';

// probe14: a workflow JSON from the internet could give its agents `"network": true` in their command_policy (here: a
// coder told to upload .env with node), and `troupe run` ran it: the jail shares the host's network then, the
// internet and this machine's loopback services (a token-less troupe serve among them). Now the user consents
// (--allow-network, or yes at a terminal) or the run is refused in one line naming the agent, the field and the flag.

const WORKFLOW = join(REPO_ROOT, 'tests', 'fixtures', 'workflows', 'hostile', 'network-coder', 'wf.json');
const REFUSAL = `${WORKFLOW}: agent coder: command_policy "network": true lets its commands reach the internet and this machine's local services — run with --allow-network to let it, or remove "network": true`;
const temp = tempDirPerTest('troupe-network-consent-');

const sessionsIn = (data: string): string[] => {
  try {
    return readdirSync(join(data, 'sessions')).filter((f) => f.endsWith('.json') && f !== 'index.json');
  } catch {
    return [];
  }
};

describe('a workflow whose agent turns the network on', () => {
  it('troupe run refuses it in one line naming the agent, the field and the flag; nothing is stored', async () => {
    const data = temp();
    const run = await runJson(['run', '--workflow', WORKFLOW, '--input', 'x', '--demo'], cleanEnv({ TROUPE_DATA_DIR: data }));
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`troupe: ${REFUSAL}\n`);
    expect(run.events).toEqual([]);
    expect(sessionsIn(data)).toEqual([]);
  });

  it('runs with --allow-network; resuming the session asks again (refused without the flag)', async () => {
    const data = temp();
    const env = cleanEnv({ TROUPE_DATA_DIR: data });
    const run = await runJson(['run', '--workflow', WORKFLOW, '--input', 'x', '--demo', '--allow-network'], env);
    expect(run.stderr).not.toContain('--allow-network');
    expect(run.events.some((e) => e.type === 'state_entered' && e.path === 'held')).toBe(true);
    expect(sessionsIn(data)).toHaveLength(1);
    const resumed = await runJson(['resume', run.id, '--demo'], env, '!continue\n', { cwd: REPO_ROOT });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toBe(`troupe: ${REFUSAL}\n`);
    const allowed = await runJson(['resume', run.id, '--demo', '--allow-network'], env, '!continue\n', { cwd: REPO_ROOT });
    expect(allowed.stderr).not.toContain('--allow-network');
  });

  it('on a terminal the user is asked: only a yes lets it', async () => {
    const grant = { agent: 'coder', source: WORKFLOW };
    const asked = (reply: string) => {
      let said = '';
      const io = { stdout: { write: (t: string) => (said += t) }, stderr: { write: () => undefined }, stdin: Readable.from([reply]), env: {}, cwd: REPO_ROOT, interactive: true };
      const consent = networkConsent(false, io, true);
      if (typeof consent !== 'function') throw new Error('expected a question');
      return consent(grant).then((yes) => ({ yes, said }));
    };
    expect(await asked('y\n')).toEqual({ yes: true, said: expect.stringContaining(`agent coder's commands ask for the network`) });
    expect((await asked('\n')).yes).toBe(false);
    expect((await asked('no\n')).yes).toBe(false);
    expect(networkConsent(true, { stdout: { write: () => undefined }, stderr: { write: () => undefined }, stdin: Readable.from([]), env: {}, cwd: REPO_ROOT, interactive: false }, false)).toBe(true);
  });

  it('troupe serve refuses a request for it unless started with --allow-network', async () => {
    const team = studio();
    const app = (allowNetwork: boolean) =>
      serveApp({
        host: new SessionHost({
          store: new MemoryStore(),
          team,
          teamDir: REPO_ROOT,
          env: { TROUPE_MODEL: 'test-model' },
          maxSessions: 4,
          model: () => new DemoModel(),
          workflows: { load: (name) => loadWorkflowOrThrow(name, { cwd: REPO_ROOT, team: team.loaded }) },
          allowWorkflowPaths: true,
          allowNetwork,
        }),
        token: TOKEN,
        maxBodyBytes: 4096,
      });
    const post = (allowNetwork: boolean) =>
      app(allowNetwork).request('/v1/sessions', {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workflow: WORKFLOW, input: 'x' }),
      });
    const refused = await post(false);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: REFUSAL });
    expect((await post(true)).status).toBe(201);
  });
});

describe('on Restate', () => {
  it('a worker refuses to create a session of it unless started with --allow-network', async () => {
    const { createSession } = await import('../../src/serve/restate/create-session.js');
    const team = studio();
    // Only what create reads before it refuses: the key and an empty store.
    const ctx = { key: 'a-session', get: async () => null } as unknown as Parameters<typeof createSession>[0];
    const runtime = (allowNetwork: boolean) =>
      ({
        team,
        env: {},
        allowWorkflowPaths: true,
        allowNetwork,
        workflows: { load: (name: string) => loadWorkflowOrThrow(name, { cwd: REPO_ROOT, team: team.loaded }) },
      }) as unknown as Parameters<typeof createSession>[1];
    const refusal = await createSession(ctx, runtime(false), { workflow: WORKFLOW, input: 'x' }).catch((error: Error & { code?: number }) => error);
    expect(refusal).toMatchObject({
      code: 400,
      message: `workflow: ${REFUSAL.replace('run with --allow-network', 'start the workers with troupe worker --allow-network')}`,
    });
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { serveApp } from '../../src/serve/app.js';
import { SessionHost } from '../../src/serve/host.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { isWorkflowPath } from '../../src/workflow/load/locate.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import { TOKEN } from '../helpers/serve.js';
import { studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-serve-prefix-');

/** A workflow folder: config.json whose one state ends at once (what a POST must not be able to run by path). */
function workflowFolder(dir: string, name: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ workflow_name: name, contexts: [{ name: 'c' }], agents: [], states: [{ name: 'start', transition: [{ target: 'stop', condition: 'true' }] }, { name: 'stop' }] }),
  );
}

/**
 * Hostile: seed 003's `workflow:<name>` prefix. The server refuses paths by looking at the request's text, but
 * the loader strips the prefix first, so `workflow:..` (no slash, no .json, no leading dot in the text) named
 * the folder above the server's directory, and `workflow:.hidden` a dot-folder in it.
 */
describe('troupe serve without --allow-workflow-paths: a path behind the workflow: prefix', () => {
  it('is refused (403) like any path, and nothing is created', async () => {
    const base = temp();
    const cwd = join(base, 'server');
    workflowFolder(base, 'above');
    workflowFolder(join(cwd, '.hidden'), 'hidden');
    const store = new MemoryStore();
    const team = studio();
    const workflows = { load: (name: string) => loadWorkflowOrThrow(name, { cwd, dirs: [], team: team.loaded }) };
    const host = new SessionHost({ store, team, teamDir: cwd, env: { TROUPE_MODEL: 'test-model' }, maxSessions: 10, model: () => new DemoModel(), workflows });
    const served = serveApp({ host, token: TOKEN, maxBodyBytes: 64 * 1024, keepAliveMs: 60_000 });
    for (const workflow of ['workflow:..', 'workflow:.hidden', 'workflow: ..', 'workflow:.']) {
      expect(isWorkflowPath(workflow), workflow).toBe(true);
      const answer = await served.request('/v1/sessions', {
        method: 'POST',
        body: JSON.stringify({ workflow, input: 'x' }),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      });
      expect(answer.status, workflow).toBe(403);
    }
    expect(await store.ids()).toEqual([]);
    // The same folders do load by path where paths are allowed (the refusal above is not a load failure).
    expect(loadWorkflowOrThrow('workflow:..', { cwd, dirs: [] }).name).toBe('above');
    expect(loadWorkflowOrThrow('workflow:.hidden', { cwd, dirs: [] }).name).toBe('hidden');
    // A name behind the prefix is still a name.
    expect(isWorkflowPath('workflow:linear_analysis')).toBe(false);
  });
});

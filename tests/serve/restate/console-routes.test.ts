import { describe, expect, it } from 'vitest';
import { CatalogSchema, GraphSchema } from '../../../src/serve/api-schema.js';
import type { RestateSessions } from '../../../src/serve/restate/ingress.js';
import { restateApp } from '../../../src/serve/restate/restate-app.js';
import { loadWorkflowOrThrow } from '../../../src/workflow/load/load-workflow.js';
import { REPO_ROOT, studio } from '../../helpers/team.js';

// troupe serve --backend restate serves the console too: the page needs the catalog and a session's graph from it.
const TEAM_ID = '11111111-2222-4333-8444-555555555555';
const FLOW_ID = '66666666-7777-4888-9999-aaaaaaaaaaaa';

function app() {
  const team = studio();
  const load = (name: string) => loadWorkflowOrThrow(name, { cwd: REPO_ROOT, team: team.loaded });
  // Only the calls these routes make: a session's workflow plan (null for a team session).
  const sessions = { plan: async (id: string) => (id === FLOW_ID ? load('coder_reviewer') : null) } as unknown as RestateSessions;
  return restateApp({
    sessions,
    team: team.def.name,
    def: team.def,
    token: null,
    maxBodyBytes: 64 * 1024,
    workflows: { load, list: () => [{ name: 'coder_reviewer', description: 'a coder and a reviewer' }] },
  });
}

describe('the console on the Restate backend', () => {
  it('serves the page, the catalog (the team, its workflows with their input, the commands) and a session graph, as the embedded backend does', async () => {
    const a = app();
    const page = await a.request('http://127.0.0.1/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const catalog = CatalogSchema.parse(await (await a.request('http://127.0.0.1/v1/catalog')).json());
    expect(catalog.team.name).toBe('V7 Studio');
    expect(catalog.workflows).toEqual([{ name: 'coder_reviewer', description: 'a coder and a reviewer', input: expect.objectContaining({ name: expect.any(String) }) }]);
    expect(catalog.events).toContain('troupe_error');
    const teamGraph = GraphSchema.parse(await (await a.request(`http://127.0.0.1/v1/sessions/${TEAM_ID}/graph`)).json());
    expect(teamGraph.kind).toBe('team');
    const flowGraph = GraphSchema.parse(await (await a.request(`http://127.0.0.1/v1/sessions/${FLOW_ID}/graph`)).json());
    expect(flowGraph).toMatchObject({ kind: 'workflow', title: 'coder_reviewer' });
    // What only the embedded store has is refused in one line that says so (the console shows it in its tab).
    for (const [method, path] of [
      ['GET', 'timeline'],
      ['GET', 'steps/1'],
      ['GET', 'deliverables'],
      ['POST', 'fork'],
    ] as const) {
      const res = await a.request(`http://127.0.0.1/v1/sessions/${TEAM_ID}/${path}`, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{"step":1}' } : {}) });
      expect([path, res.status]).toEqual([path, 404]);
      expect(((await res.json()) as { error: string }).error).toMatch(/^the timeline, forks and deliverables read the session files of troupe serve/);
    }
  });
});

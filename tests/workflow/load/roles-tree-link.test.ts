import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../../src/config/issues.js';
import { loadWorkflow } from '../../../src/workflow/load/load-workflow.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-roles-link-');
const MARKER = 'OUTSIDE-ROLE-MARKER: you are a spy';

/**
 * Hostile: SynthDev's layout, `config/workflows/` with its roles in `config/roles/` beside it — where `roles`
 * is a symlink to a folder outside the project. A workflow folder that is a link out is refused
 * (folder-links.test.ts), and so is a roles.json that is one; the roles folder must be too, or its files
 * become the agents' system messages (sent to the model server).
 */
function project(link: boolean): { root: string; workflows: string } {
  const root = temp();
  const workflows = join(root, 'config', 'workflows');
  mkdirSync(workflows, { recursive: true });
  const roles = link ? join(root, 'elsewhere', 'roles') : join(root, 'config', 'roles');
  mkdirSync(roles, { recursive: true });
  writeFileSync(join(roles, 'roles.json'), JSON.stringify({ spy: { systemMessage: MARKER } }));
  if (link) symlinkSync(roles, join(root, 'config', 'roles'));
  writeFileSync(
    join(workflows, 'w.json'),
    JSON.stringify({
      workflow_name: 'w',
      contexts: [{ name: 'c' }],
      agents: [{ agent_role: 'spy', context: 'c', role: 'assistant' }],
      states: [{ name: 'start', agent: 'spy', input: 'common_data.input', transition: [{ target: 'stop', condition: 'true' }] }, { name: 'stop' }],
    }),
  );
  return { root, workflows };
}

describe("SynthDev's config/roles beside config/workflows", () => {
  it('a roles folder that is a symlink out of config/ is refused in one line, its roles never read', () => {
    const { root, workflows } = project(true);
    const result = loadWorkflow('w', { cwd: root, dirs: [workflows] });
    expect(result.plan).toBeNull();
    expect(result.issues.map(formatIssue).join('\n')).toMatch(/roles.*leads outside/);
    expect(JSON.stringify(result)).not.toContain(MARKER);
  });

  it('the same folder inside config/ gives the agent its role', () => {
    const { root, workflows } = project(false);
    const result = loadWorkflow('w', { cwd: root, dirs: [workflows] });
    expect(result.issues).toEqual([]);
    expect(JSON.stringify(result.plan)).toContain(MARKER);
  });
});

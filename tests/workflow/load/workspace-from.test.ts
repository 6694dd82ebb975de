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
function scene(pick: (places: Places) => string): { cwd: string; file: string } {
  const base = temp();
  const cwd = join(base, 'project');
  const flows = join(base, 'flows');
  const outside = join(base, 'secrets');
  const from = pick({ cwd, flows, outside });
  for (const dir of [cwd, flows, outside, join(flows, 'start'), join(cwd, 'src')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(outside, 'id_rsa'), 'PRIVATE KEY\n');
  symlinkSync(outside, join(flows, 'link-out'));
  symlinkSync(outside, join(cwd, 'link-out'));
  writeFileSync(join(flows, 'roles.json'), JSON.stringify({ worker: { systemMessage: 'You work.', tools: ['read_file'] } }));
  const file = join(flows, 'w.json');
  writeFileSync(
    file,
    JSON.stringify({
      workflow_name: 'w',
      workspace: { from },
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

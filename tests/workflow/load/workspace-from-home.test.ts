import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceFromIssue } from '../../../src/workflow/load/workspace-from.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';

// probe15, hostile: troupe run from the home directory (where many users open a terminal) with a downloaded workflow
// naming "workspace": { "from": "." }: the copy took the whole home, every token past the names a copy leaves out
// (~/.config/gh, ~/.kube/config, troupe's own seal key), into each agent's workspace.
const temp = tempDirPerTest('troupe-wf-from-home-');

function home(): { home: string; file: string } {
  const home = temp();
  mkdirSync(join(home, 'flows'));
  mkdirSync(join(home, 'project'));
  return { home, file: join(home, 'flows', 'w.json') };
}

describe("a workflow's workspace.from and the user's home directory", () => {
  it.each(['.', 'flows/..'])('"%s" from home is refused, naming the field', (from) => {
    const { home: dir, file } = home();
    const issue = workspaceFromIssue(from, { cwd: dir, file, shown: 'w.json', home: dir });
    expect(issue).toMatchObject({ field: 'workspace.from', fix: 'name the project directory the agents should start from, and run troupe there' });
    expect(issue!.problem).toBe(
      `"${from}" is ${dir}, which holds your home directory ${dir}: its keys and tokens (~/.config, ~/.kube, troupe's seal key) would be copied into every agent's workspace`,
    );
  });

  it('a directory holding home (troupe run from /home) is refused too', () => {
    const { home: dir, file } = home();
    const parent = join(dir, '..');
    expect(workspaceFromIssue('.', { cwd: parent, file, shown: 'w.json', home: dir })?.problem).toMatch(/which holds your home directory/);
  });

  it('a project below home is fine', () => {
    const { home: dir, file } = home();
    expect(workspaceFromIssue('project', { cwd: dir, file, shown: 'w.json', home: dir })).toBeNull();
    expect(workspaceFromIssue('.', { cwd: join(dir, 'project'), file, shown: 'w.json', home: dir })).toBeNull();
  });
});

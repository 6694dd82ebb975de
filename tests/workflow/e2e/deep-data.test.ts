import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { REPO_ROOT } from '../../helpers/team.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';

const HOSTILE = join(REPO_ROOT, 'tests', 'fixtures', 'workflows', 'hostile');
const temp = tempDirPerTest('troupe-deep-');

/** Files under the data directory (a refused run leaves none). */
function filesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

describe('workflow data nested thousands of levels deep is refused before anything runs', () => {
  it('variables 5000 levels deep: validate and run both refuse them in one line naming file and field (exit 1); no session files', async () => {
    const dir = temp();
    const env = cleanEnv({ TROUPE_DATA_DIR: dir });
    const file = join(HOSTILE, 'deep-variables.json');
    const line = /deep-variables\.json: variables\.deep\.a\.a…: nests deeper than 100 levels of objects and arrays — keep the data flatter$/;
    const validated = await runCli(['validate', '--workflow', file], env);
    expect(validated.code).toBe(1);
    expect(validated.stderr.split('\n')[0]).toMatch(line);
    const run = await runCli(['run', '--workflow', file, '--input', 'x', '--demo', '--json'], env);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)]);
    expect(run.stdout).toBe('');
    expect(filesIn(dir)).toEqual([]);
  });

  it('an --input object 5000 levels deep is refused in one line before a session exists (exit 1)', async () => {
    const dir = temp();
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const run = await runCli(['run', '--workflow', join(HOSTILE, 'object-input.json'), '--input', deep, '--demo', '--json'], cleanEnv({ TROUPE_DATA_DIR: dir }));
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe('troupe: the input of workflow object_input nests deeper than 100 levels of objects and arrays (at a.a.a.a…): give it flatter JSON');
    expect(filesIn(dir)).toEqual([]);
    // The same workflow takes a flat object.
    const flat = await runCli(['run', '--workflow', join(HOSTILE, 'object-input.json'), '--input', '{"a": 1}', '--demo', '--json'], cleanEnv({ TROUPE_DATA_DIR: dir }));
    expect(flat.code).toBe(0);
    expect(flat.stdout).toMatch(/"type":"session_ended","reason":"workflow object_input complete","output":"object"/);
  });
});

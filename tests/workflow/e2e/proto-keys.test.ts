import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { REPO_ROOT } from '../../helpers/team.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';

const temp = tempDirPerTest('troupe-proto-');
const OBJECT_INPUT = join(REPO_ROOT, 'tests', 'fixtures', 'workflows', 'hostile', 'object-input.json');

/** Whether anything reached Object.prototype of this process (the CLI runs in it). */
const polluted = () => ({}) as Record<string, unknown>;

/**
 * Hostile: `__proto__` (and `constructor.prototype`) keys where troupe itself, not workflow code, builds
 * objects from JSON — a workflow input given on the command line and a workflow's `variables`. JSON.parse
 * makes them own properties; a merge that assigns them (Object.assign, obj[key] = v) would set a prototype
 * or pollute Object.prototype in troupe's own process.
 */
describe('__proto__ keys in what troupe builds objects from', () => {
  it('a workflow input object: refused or kept as data, never a prototype', async () => {
    const raw = `{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted2": "yes"}}, "a": 1}`;
    const out = await runCli(['run', '--workflow', OBJECT_INPUT, '--input', raw, '--json'], cleanEnv());
    expect(polluted().polluted).toBeUndefined();
    expect(polluted().polluted2).toBeUndefined();
    // Refused before a session starts (it once ran until the state that kept it failed, and !continue failed
    // again), in one line naming the key: never a stack trace.
    expect(out.code).toBe(1);
    expect(out.stderr.trim()).toMatch(/^troupe: the input of workflow \S+ has a key "__proto__", which workflow data may not have: rename it$/);
  });

  it("a workflow's variables: never a prototype", async () => {
    const dir = temp();
    const file = join(dir, 'vars.json');
    writeFileSync(
      file,
      `{"workflow_name": "vars", "variables": {"__proto__": {"polluted3": "yes"}, "k": 1}, "states": [{"name": "start", "action": {"script": "this.common_data.output = String(Object.getPrototypeOf(this.common_data.k === 1 ? {} : null) === Object.prototype) + ':' + typeof ({}).polluted3"}, "transition": [{"target": "stop", "condition": "true"}]}, {"name": "stop"}]}`,
    );
    const out = await runCli(['run', '--workflow', file, '--input', 'x', '--json'], cleanEnv());
    expect(polluted().polluted3).toBeUndefined();
    expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: expect.not.stringMatching(/\n\s+at /) });
    // Inside the sandbox too, the key made no prototype: a fresh object's is Object.prototype, unpolluted.
    expect(out.stdout).toContain('"output":"true:undefined"');
  });
});

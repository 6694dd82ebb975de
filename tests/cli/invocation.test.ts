import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { invocationOf, namingCommand } from '../../src/cli/invocation.js';
import { attachOutput } from '../../src/cli/attach-output.js';
import type { SessionKernel } from '../../src/kernel/session-kernel.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { cleanEnv, runCli, runCliProcess } from '../helpers/cli.js';
import { REPO_ROOT, studioRunner } from '../helpers/team.js';

const dir = mkdtempSync(join(tmpdir(), 'troupe-invocation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const clone = join(dir, 'clone');
const script = join(clone, 'dist', 'cli.js');
mkdirSync(join(clone, 'dist'), { recursive: true });
writeFileSync(script, '');
const bin = join(dir, 'bin');
mkdirSync(bin);
symlinkSync(script, join(bin, 'troupe'));
const nowhere = () => undefined;

describe('the command a hint names for troupe', () => {
  it('is troupe when that name on the PATH is this CLI (npm link), whichever path started it', () => {
    expect(invocationOf({ script: join(bin, 'troupe'), env: { PATH: bin }, cwd: dir })).toBe('troupe');
    expect(invocationOf({ script, env: { PATH: `relative:${bin}` }, cwd: clone })).toBe('troupe');
  });

  it('is node and the script when troupe on the PATH is missing or another program (before npm link)', () => {
    expect(invocationOf({ script, env: {}, cwd: clone }, nowhere)).toBe('node dist/cli.js');
    expect(invocationOf({ script, env: { PATH: join(dir, 'none') }, cwd: clone })).toBe('node dist/cli.js');
    const other = join(dir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'troupe'), '');
    expect(invocationOf({ script, env: { PATH: other }, cwd: clone })).toBe('node dist/cli.js');
    // Below the directory: the path from it; from elsewhere, the full path, quoted when a shell would split it.
    expect(invocationOf({ script, env: {}, cwd: dir }, nowhere)).toBe('node clone/dist/cli.js');
    expect(invocationOf({ script, env: {}, cwd: join(dir, 'bin') }, nowhere)).toBe(`node ${script}`);
    expect(invocationOf({ script: "/home/a b/it's/cli.js", env: {}, cwd: dir }, nowhere)).toBe(`node '/home/a b/it'\\''s/cli.js'`);
  });

  it('is npm start -- under npm start in the clone, npx troupe under npx', () => {
    expect(invocationOf({ script, env: { npm_lifecycle_event: 'start', npm_package_name: 'troupe', PATH: bin }, cwd: clone })).toBe('npm start --');
    // Another package's start script that runs troupe: npm start there is not troupe.
    expect(invocationOf({ script, env: { npm_lifecycle_event: 'start', npm_package_name: 'mygame' }, cwd: clone }, nowhere)).toBe('node dist/cli.js');
    const npx = join(dir, '_npx', 'c264bddb', 'node_modules', '.bin', 'troupe');
    expect(invocationOf({ script: npx, env: { npm_command: 'exec', npm_lifecycle_event: 'npx' }, cwd: clone }, nowhere)).toBe('npx troupe');
    // npm's variables reach every process below it: the CLI that npx vitest's test runs is not npx troupe.
    expect(invocationOf({ script, env: { npm_command: 'exec', npm_lifecycle_event: 'npx' }, cwd: clone }, nowhere)).toBe('node dist/cli.js');
  });

  it('is troupe for a caller of main() that does not say how it was started', async () => {
    const result = await runCli(['run', '--demo', 'a lighthouse game', '--max-turns', '1']);
    expect(result.stdout).toMatch(/continue it with: troupe resume [0-9a-f]{8}\n/);
  });

  it('is what every hint of the CLI names: saved, sessions, workflows, fork', async () => {
    const data = join(dir, 'hints');
    const say = async (args: string[]) => {
      let out = '';
      await main(args, {
        stdout: { write: (t: string) => (out += t) },
        stderr: { write: () => true },
        stdin: Readable.from([]),
        env: cleanEnv({ TROUPE_DATA_DIR: data }),
        cwd: dir,
        interactive: false,
        invocation: () => 'npm start --',
      });
      return out;
    };
    expect(await say(['sessions'])).toContain('start one with npm start -- run "<brief>"');
    const run = await say(['run', '--demo', 'a lighthouse game', '--max-turns', '1']);
    const id = /continue it with: npm start -- resume ([0-9a-f]{8})\n/.exec(run)![1]!;
    expect(await say(['workflows'])).toContain('run one: npm start -- run --workflow <name>');
    expect(await say(['fork', id])).toContain(`fork at a step: npm start -- fork ${id} --at <step>`);
  });

  it('the saved line of a real process started before npm link names node dist/cli.js; after it, troupe', async () => {
    const env = cleanEnv({ PATH: join(dir, 'none') });
    for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
    const before = await runCliProcess(['run', '--demo', 'a lighthouse game', '--max-turns', '1'], env);
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/continue it with: node dist\/cli\.js resume [0-9a-f]{8}\n/);
    const linked = join(dir, 'linked');
    mkdirSync(linked);
    symlinkSync(join(REPO_ROOT, 'dist', 'cli.js'), join(linked, 'troupe'));
    const after = await runCliProcess(['run', '--demo', 'a lighthouse game', '--max-turns', '1'], { ...env, PATH: linked });
    expect(after.stdout).toMatch(/continue it with: troupe resume [0-9a-f]{8}\n/);
  });

  it("is what the hints worded below the CLI name: the store's, the session's, a usage line, the kernel's stop line", async () => {
    const said = async (args: string[]) => {
      let err = '';
      await main(args, {
        stdout: { write: () => true },
        stderr: { write: (t: string) => (err += t) },
        stdin: Readable.from([]),
        env: cleanEnv({ TROUPE_DATA_DIR: join(dir, 'below') }),
        cwd: dir,
        interactive: false,
        invocation: () => 'node dist/cli.js',
      });
      return err;
    };
    // The store's (no such session) and a usage error's lines.
    expect(await said(['show', 'nosuch'])).toContain('run node dist/cli.js sessions to list them');
    expect(await said(['fork'])).toContain('(node dist/cli.js fork --help shows its options and examples)');
    // The kernel's line when a save fails, as the headless transcript prints it; the JSON keeps troupe's words.
    const { runner } = await studioRunner(new ScriptedModel([]));
    const lines: string[] = [];
    const json: string[] = [];
    attachOutput(runner, { json: false, write: (l) => lines.push(l), troupe: () => 'npx troupe' });
    attachOutput(runner, { json: true, write: (l) => json.push(l), troupe: () => 'npx troupe' });
    (runner as unknown as { parts: { kernel: SessionKernel } }).parts.kernel.stopSaving(new Error('disk full'));
    expect(lines.join('\n')).toContain('continue it with npx troupe resume s-test');
    expect(json.join('\n')).toContain('continue it with troupe resume s-test');
    // Only a command after troupe is a hint: troupe's other words stay.
    expect(namingCommand('more than troupe writes; troupe runner; troupe: x; troupe run-x', 'npm start --')).toBe('more than troupe writes; troupe runner; troupe: x; troupe run-x');
  });
});

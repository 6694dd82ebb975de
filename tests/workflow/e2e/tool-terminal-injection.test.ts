import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { ACTIVE, HOSTILE } from '../../helpers/hostile-text.js';
import { bwrapMissing } from '../../helpers/jail.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';
import { reply, roleServerPerTest } from '../../helpers/workflow-run.js';

const temp = tempDirPerTest('troupe-tool-inject-');
const serveRoles = roleServerPerTest();

/**
 * Hostile: control sequences that reach the transcript through tools rather than through the model's text —
 * a file name the model chose (write_file's path, shown in the tool line), a command's output (printf of an
 * OSC 52 clipboard write), a listing of those names, and a tool error quoting the path.
 */
function setup(base: string): string {
  const dir = join(base, 'flows');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'roles.json'),
    JSON.stringify({ worker: { systemMessage: 'You work.', tools: ['write_file', 'read_file', 'list_files', 'run_command'], max_tool_steps: 10, command_policy: { allow: ['printf'] } } }),
  );
  const file = join(dir, 'w.json');
  writeFileSync(
    file,
    JSON.stringify({
      workflow_name: 'w',
      contexts: [{ name: 'c', starting_messages: [], max_length: 100000 }],
      agents: [{ agent_role: 'worker', context: 'c', role: 'assistant' }],
      states: [{ name: 'work', agent: 'worker', input: 'common_data.input', transition: [{ target: 'stop', condition: 'true' }] }, { name: 'stop' }],
    }),
  );
  return file;
}

describe.skipIf(bwrapMissing)('control sequences through tools never reach the terminal', () => {
  it('a hostile file name, command output, listing and tool error are printed made safe', async () => {
    const base = temp();
    const workflow = setup(base);
    const name = `note${HOSTILE.osc52_clipboard}${HOSTILE.cr_overwrite}.txt`;
    const calls: [string, unknown][] = [
      ['write_file', { path: name, content: 'x' }],
      ['list_files', {}],
      ['read_file', { path: `missing${HOSTILE.osc0_title}` }],
      ['run_command', { command: "printf '\\033]52;c;SGVsbG8=\\007 \\033[2J cleared'" }],
    ];
    const server = await serveRoles({ worker: [...calls.map(([n, args]) => reply('', { name: n, arguments: args })), reply('Done.')] }, () => 'worker');
    const env = cleanEnv({ OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'test', TROUPE_MODEL: 'test-model', TROUPE_DATA_DIR: join(base, 'data') });
    const run = await runCli(['run', '--workflow', workflow, '--input', 'go'], env);
    expect(server.unexpected).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Done.');
    expect(run.stdout).toMatch(/write_file note/);
    expect(run.stdout).not.toMatch(ACTIVE);
    expect(run.stderr).not.toMatch(ACTIVE);
    const id = /session (\S+) saved/.exec(run.stdout)?.[1];
    expect(id).toBeTruthy();
    for (const args of [
      ['show', id!],
      ['export', id!, 'md'],
    ]) {
      const out = await runCli(args, env);
      expect(out.code, args.join(' ')).toBe(0);
      expect(out.stdout + out.stderr).not.toMatch(ACTIVE);
    }
  });
});

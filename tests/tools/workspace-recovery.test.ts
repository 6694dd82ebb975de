import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/tools/workspace.js';
import type { Child } from '../helpers/child.js';
import { cleanEnv } from '../helpers/cli.js';
import { cliProcess, printedEvents } from '../helpers/crash-run.js';
import { TIER_MODELS } from '../helpers/debate-script.js';
import { fakeServerPerTest, type FakeReply } from '../helpers/fake-openai-server.js';
import { fingerprint } from '../helpers/fingerprint.js';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { ofType, reply, runJson } from '../helpers/workflow-run.js';

const temp = tempDirPerTest('troupe-ws-');
const serve = fakeServerPerTest();
const children: Child[] = [];
const fifos: string[] = [];
beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run npm run build first');
});
afterEach(async () => {
  for (const c of children.splice(0)) await c.kill('SIGKILL');
  // A regression that blocks on a FIFO must fail the test, not hang the run: opening the write end frees it.
  for (const f of fifos.splice(0)) if (existsSync(f)) closeSync(openSync(f, constants.O_RDWR | constants.O_NONBLOCK));
});

describe('a workspace whose making was cut off', () => {
  it('a directory without its record (a crash in between) is made again, not refused', async () => {
    const root = temp();
    mkdirSync(join(root, 'workspaces', 'impl_a'), { recursive: true });
    writeFileSync(join(root, 'workspaces', 'impl_a', 'half.txt'), 'left by a crash');
    const ws = await createWorkspace({ root, name: 'impl_a' });
    expect(ws.kind).toBe('empty');
    expect(existsSync(join(ws.dir, 'half.txt'))).toBe(false);
  });
});

/**
 * A scene for one probe: a workflow with one tool-using agent (the scripted attacker), its start directory, a
 * directory outside; with `errorHandler` a failed turn goes to the final state (the session ends) instead of pausing.
 */
function scene(errorHandler = false) {
  const base = temp();
  const from = join(base, 'start');
  const outside = join(base, 'outside');
  const data = join(base, 'data');
  mkdirSync(from);
  mkdirSync(outside);
  writeFileSync(join(from, 'v.txt'), 'original\n');
  writeFileSync(join(outside, 'victim.txt'), 'the victim file, not to be overwritten\n');
  writeFileSync(join(outside, 'new.txt'), 'not to be deleted\n');
  writeFileSync(
    join(base, 'roles.json'),
    JSON.stringify({ attacker: { name: 'Attacker', level: 'base', systemMessage: 'You probe the file tools.', tools: ['read_file', 'write_file', 'edit_file', 'list_files'], max_tool_steps: 10 } }),
  );
  const workflow = {
    workflow_name: 'undo_probe',
    input: { name: 'task', type: 'string' },
    output: { name: 'result', type: 'string' },
    contexts: [{ name: 'work', starting_messages: [], max_length: 20000 }],
    agents: [{ agent_role: 'attacker', context: 'work', role: 'assistant' }],
    workspace: { from },
    ...(errorHandler ? { error_handler: 'stop' } : {}),
    states: [
      { name: 'probe', agent: 'attacker', input: 'common_data.task', transition: [{ target: 'stop', condition: 'true', before: 'this.common_data.result = this.last_agent_response;' }] },
      { name: 'stop' },
    ],
  };
  const file = join(base, 'undo_probe.json');
  writeFileSync(file, JSON.stringify(workflow));
  const env = (baseURL: string) => cleanEnv({ OPENAI_BASE_URL: baseURL, TROUPE_DATA_DIR: data, ...TIER_MODELS });
  const args = ['run', '--workflow', file, '--input', 'probe the undo log'];
  /** The session's workspaces directory (`<data>/runs/<id>/workspaces`), once the run has made it. */
  const workspaces = () => join(data, 'runs', readdirSync(join(data, 'runs'))[0]!, 'workspaces');
  return { outside, data, env, args, workspaces, before: fingerprint(outside) };
}

const write = (path: string, content: string): FakeReply => reply('', { name: 'write_file', arguments: { path, content } });

describe('crash recovery never writes or deletes outside the workspace (an agent swapped its files for links)', () => {
  for (const signal of ['SIGKILL', 'SIGINT'] as const) {
    it(`${signal} mid-turn after v.txt and d/new.txt were written and swapped for links to outside, then \`troupe resume\``, async () => {
      const s = scene();
      let held!: () => void;
      const reached = new Promise<void>((resolve) => (held = resolve));
      const server = await serve([
        write('v.txt', 'agent\n'),
        write('d/new.txt', 'agent\n'),
        // The third call is held: both writes are done, the process waits on the model; the test swaps, then kills.
        () => {
          held();
          return new Promise<never>(() => {});
        },
        // The resumed session re-runs the turn from the start: it answers at once.
        reply('probed'),
      ]);
      const run = cliProcess('run', [...s.args, '--json'], s.env(server.baseURL));
      children.push(run);
      await run.waitFor(/"type":"session_started"/);
      await reached;
      const ws = join(s.workspaces(), 'attacker');
      expect(readFileSync(join(ws, 'v.txt'), 'utf8')).toBe('agent\n');
      expect(readFileSync(join(ws, 'd', 'new.txt'), 'utf8')).toBe('agent\n');
      // What a hostile agent's command would do: v.txt becomes a link to an outside file, d a link to the outside directory.
      unlinkSync(join(ws, 'v.txt'));
      symlinkSync(join(s.outside, 'victim.txt'), join(ws, 'v.txt'));
      rmSync(join(ws, 'd'), { recursive: true });
      symlinkSync(s.outside, join(ws, 'd'));
      await run.kill(signal);
      const id = String(printedEvents(run)[0]!.session_id);

      const resumed = await runJson(['resume', id], s.env(server.baseURL));
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(fingerprint(s.outside)).toEqual(s.before);
      // v.txt is the file it was before the turn, a file of its own again; d/new.txt could not be reached and is said so.
      expect(lstatSync(join(ws, 'v.txt')).isFile()).toBe(true);
      expect(readFileSync(join(ws, 'v.txt'), 'utf8')).toBe('original\n');
      expect(ofType(resumed.events, 'note').map((e) => e.text)).toEqual([
        expect.stringMatching(/^attacker: 1 file\(s\) put back as they were before turn .* first ran \(it was cut off\)$/),
        'attacker: not put back: d/new.txt ("d" (on the way to "d/new.txt") became a symbolic link; refused)',
      ]);
      expect(ofType(resumed.events, 'session_ended')).toHaveLength(1);
      expect(readdirSync(s.workspaces()).sort()).toEqual(['attacker', 'attacker.json']);
    }, 60_000);
  }

  it('write_file and edit_file on a FIFO answer a tool error at once and the session goes on (through the real CLI)', async () => {
    const s = scene();
    const server = await serve([
      // The agent's first call: a FIFO is made where it will write (as its own command would), then write_file to it.
      () => {
        const pipe = join(s.workspaces(), 'attacker', 'pipe');
        execFileSync('mkfifo', [pipe]);
        fifos.push(pipe);
        return write('pipe', 'x');
      },
      reply('', { name: 'edit_file', arguments: { path: 'pipe', old_text: 'a', new_text: 'b' } }),
      write('after.txt', 'still working\n'),
      reply('probed'),
    ]);
    const run = await runJson(s.args, s.env(server.baseURL));
    expect(run.code, run.stderr).toBe(0);
    const finished = ofType(run.events, 'tool_call').filter((e) => e.phase === 'finished');
    expect(finished.map((e) => [e.tool, e.ok, e.detail])).toEqual([
      ['write_file', false, '"pipe" is a FIFO (named pipe); only regular files can be written'],
      ['edit_file', false, '"pipe" is a FIFO (named pipe); only regular files can be written'],
      ['write_file', true, undefined],
    ]);
    expect(readFileSync(join(s.workspaces(), 'attacker', 'after.txt'), 'utf8')).toBe('still working\n');
    expect(ofType(run.events, 'session_ended')).toEqual([expect.objectContaining({ output: 'probed' })]);
    expect(fingerprint(s.outside)).toEqual(s.before);
  }, 60_000);

  it('a session that ends after a cut-off tool turn leaves no undo log behind', async () => {
    const s = scene(true);
    // The turn writes, then its next model call fails for good: its answer is never applied, and the session ends.
    const server = await serve([write('a.txt', 'half done\n'), { status: 400, body: { error: { message: 'bad request' } } }]);
    const run = await runJson(s.args, s.env(server.baseURL));
    expect(ofType(run.events, 'session_ended')).toHaveLength(1);
    expect(readFileSync(join(s.workspaces(), 'attacker', 'a.txt'), 'utf8')).toBe('half done\n');
    expect(readdirSync(s.workspaces()).sort()).toEqual(['attacker', 'attacker.json']);
  }, 60_000);
});

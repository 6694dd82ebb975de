import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';
import { ofType, runJson, statesEntered, transcriptOf } from '../../helpers/workflow-run.js';

const temp = tempDirPerTest('troupe-hostile-');

/**
 * A small workflow: a writer drafts (a real agent turn, so there is work to keep), then the state
 * `hostile` runs the given code as its `script` or as its transition's `before`; `next` is the normal
 * way on, `recover` the error handler (when there is one). Written to a temp dir, run by path.
 */
function hostileWorkflow(dir: string, code: string, where: 'script' | 'before', errorHandler = true): string {
  const hostile =
    where === 'script'
      ? { name: 'hostile', action: { script: code }, transition: [{ target: 'next', condition: 'true' }] }
      : { name: 'hostile', transition: [{ target: 'next', condition: 'true', before: code }] };
  const workflow = {
    workflow_name: 'misbehaving',
    description: 'workflow code that misbehaves',
    input: { name: 'task', type: 'string' },
    output: { name: 'result', type: 'string' },
    variables: { saved: 'kept' },
    contexts: [{ name: 'notes', starting_messages: [], max_length: 10000 }],
    agents: [{ agent_role: 'writer', context: 'notes', role: 'assistant' }],
    ...(errorHandler ? { error_handler: 'recover' } : {}),
    states: [
      {
        name: 'start',
        agent: 'writer',
        input: 'common_data.task',
        transition: [{ target: 'hostile', condition: 'true', before: "this.common_data.draft = this.getAgent('writer').getLastResponse()" }],
      },
      hostile,
      {
        name: 'next',
        action: { script: "this.common_data.result = 'normal path: ' + (({}).polluted === undefined ? 'clean prototypes' : 'POLLUTED')" },
        transition: [{ target: 'stop', condition: 'true' }],
      },
      ...(errorHandler
        ? [
            {
              name: 'recover',
              action: { script: "this.common_data.result = 'recovered, ' + this.common_data.saved + ', draft ' + (this.common_data.draft ? 'kept' : 'lost')" },
              transition: [{ target: 'stop', condition: 'true' }],
            },
          ]
        : []),
      { name: 'stop' },
    ],
  };
  const file = join(dir, 'misbehaving.json');
  writeFileSync(file, JSON.stringify(workflow, null, 2));
  return file;
}

// The error names the field: the state's script (`enter`) or the transition's `before`, quoting the code.
const SCRIPT = /^enter: script `/;
const BEFORE = /^transitions: before-code of hostile → next `/;

const cases: { name: string; where: 'script' | 'before'; code: (dir: string) => string; field: RegExp; error: RegExp }[] = [
  { name: 'an infinite loop', where: 'script', code: () => 'while (true) {}', field: SCRIPT, error: /ran more than 50,000,000 steps — an endless loop\?$/ },
  { name: 'a huge allocation', where: 'before', code: () => "this.common_data.big = new Array(1e9).fill('x').join('')", field: BEFORE, error: /ran out of memory \(32 MiB\)/ },
  {
    name: "require('fs')",
    where: 'script',
    code: (dir) => `require('fs').writeFileSync(${JSON.stringify(join(dir, 'pwned'))}, 'x')`,
    field: SCRIPT,
    error: /ReferenceError: 'require' is not defined — workflow code runs in a sandbox without Node/,
  },
  { name: 'process.exit', where: 'before', code: () => 'process.exit(3)', field: BEFORE, error: /ReferenceError: 'process' is not defined — workflow code runs in a sandbox without Node/ },
  {
    name: 'prototype pollution through common_data',
    where: 'script',
    code: () => `this.common_data.x = JSON.parse('{"__proto__": {"polluted": 1}}')`,
    field: /^enter: common_data: /,
    error: /common_data\.x has a key "__proto__"/,
  },
];

describe('workflow code that misbehaves fails cleanly, in one line, and the session goes on', () => {
  it.each(cases)(
    '$name in `$where`: one error naming workflow, state and field, then the error_handler state',
    async ({ where, code, field, error }) => {
      const dir = temp();
      const run = await runJson(['run', '--workflow', hostileWorkflow(dir, code(dir), where), '--input', 'a haiku about tides', '--demo'], cleanEnv({ TROUPE_DATA_DIR: dir }));
      expect(run.code).toBe(0);
      const errors = ofType(run.events, 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]!.where).toBe('misbehaving.hostile');
      expect(errors[0]!.message).toMatch(field);
      expect(errors[0]!.message).toMatch(error);
      expect(errors[0]!.message).not.toContain('\n');
      expect(statesEntered(run.events)).toEqual(['start', 'hostile', 'recover', 'stop']);
      // The work done before the failure is kept: the draft reached the handler, the writer ran once.
      expect(transcriptOf(run.events)).toHaveLength(1);
      expect(ofType(run.events, 'session_ended')[0]).toMatchObject({ reason: 'workflow misbehaving complete', output: 'recovered, kept, draft kept' });
      expect(existsSync(join(dir, 'pwned'))).toBe(false);
    },
    60_000,
  );

  it('Object.prototype polluted in a script stays in that evaluation: the next state sees clean prototypes, the host too', async () => {
    const dir = temp();
    const code = "Object.prototype.polluted = 'yes'; Array.prototype.map = null; this.common_data.seen = ({}).polluted;";
    const run = await runJson(['run', '--workflow', hostileWorkflow(dir, code, 'script'), '--input', 'x', '--demo'], cleanEnv({ TROUPE_DATA_DIR: dir }));
    expect(run.code).toBe(0);
    expect(ofType(run.events, 'error')).toEqual([]);
    expect(ofType(run.events, 'session_ended')[0]!.output).toBe('normal path: clean prototypes');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(typeof [].map).toBe('function');
  });

  it('with no error handler the session pauses with !continue; the saved session keeps its work and resumes', async () => {
    const dir = temp();
    const env = cleanEnv({ TROUPE_DATA_DIR: dir });
    const run = await runJson(['run', '--workflow', hostileWorkflow(dir, 'while (true) {}', 'script', false), '--input', 'a haiku', '--demo'], env);
    expect(run.code).toBe(1);
    const paused = ofType(run.events, 'awaiting_user');
    expect(paused).toHaveLength(1);
    expect(paused[0]!.reason).toMatch(/^misbehaving: state hostile failed: enter: script `while \(true\) \{\}`: ran more than 50,000,000 steps — an endless loop\?; !continue tries it again$/);
    expect(ofType(run.events, 'session_detached')[0]).toMatchObject({ reason: 'awaiting_user' });
    expect(run.stderr).toContain(`session ${run.id} saved`);

    // Resumed, the session says what it waits for; !continue runs the failing state again (and only it):
    // the writer's turn is not re-run, and the same clean error comes back.
    const resumed = await runJson(['resume', run.id, '--demo'], env, '!continue\n');
    expect(ofType(resumed.events, 'agent_started')).toEqual([]);
    expect(ofType(resumed.events, 'error').map((e) => [e.where, e.message])).toEqual([
      ['misbehaving.hostile', expect.stringMatching(/^enter: script `while \(true\) \{\}`: ran more than 50,000,000 steps/)],
    ]);
    expect(ofType(resumed.events, 'awaiting_user')).toHaveLength(1);
    expect(resumed.code).toBe(1);
    // Nothing saved was lost: the stored session still shows the writer's draft.
    const shown = await runCli(['show', run.id], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(String(ofType(run.events, 'agent_message')[0]!.text));
  }, 60_000);
});

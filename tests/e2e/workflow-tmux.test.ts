import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { hasTmux, TmuxUi } from '../helpers/tmux.js';
import { messagesOf, reply, RoleServer, toolsOf } from '../helpers/workflow-run.js';

const temp = tempDirPerTest('troupe-wf-tui-');
let ui: TmuxUi | null = null;
let server: FakeOpenAIServer | null = null;
beforeAll(() => {
  if (hasTmux && !existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run npm run build first');
});
afterEach(async () => {
  await ui?.stop();
  ui = null;
  await server?.stop();
  server = null;
});

const READY = (s: string) => s.includes('Type a brief for the team');

describe.skipIf(!hasTmux)(`workflows in the real terminal UI${hasTmux ? '' : ' (skipped: tmux is not installed)'}`, () => {
  it('/workflow coder_reviewer runs while !status answers with its state, then ends showing its output', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const roles = new RoleServer({
      coder: [(_req) => held.then(() => reply('CODE-V1: encoder draft.')), reply('CODE-V2: encoder with checksum.')],
      reviewer: [
        reply('Needs the checksum.', { name: 'review_work', arguments: { improvement_needed: true, continue_message: 'add the checksum' } }),
        reply('Good.', { name: 'review_work', arguments: { improvement_needed: false, work_summary: 'SUMMARY: bech32 encoder with checksum' } }),
      ],
    });
    server = await roles.start();
    ui = new TmuxUi({ OPENAI_BASE_URL: roles.baseURL, TROUPE_MODEL: 'test-model', TROUPE_DATA_DIR: temp() });
    await ui.waitFor('the first frame', READY);
    ui.type('/workflow coder_reviewer a bech32 encoder');
    // The coder's call is held by the server: the workflow is running when !status is typed.
    await ui.waitFor('the coder answering', (s) => roles.of('coder').length === 1 && s.includes('Coder is answering'));
    ui.type('!status');
    const status = await ui.waitFor('the status box', (s) => s.includes('state: coder_reviewer › code'));
    expect(status).toMatch(/now: Coder is answering/);
    expect(status).toMatch(/^coder_reviewer › code\s+·\s+Coder is answering/m);
    release();
    // The output box and the state line may be drawn in different frames (a loaded machine): wait for both.
    const ended = /^coder_reviewer › stop\s+·\s+ended: workflow coder_reviewer complete/m;
    const done = await ui.waitFor('the workflow output and the ended state line', (s) => s.includes('workflow output') && s.includes('SUMMARY: bech32 encoder with checksum') && ended.test(s));
    expect(done).toMatch(ended);
    expect(done).toContain('CODE-V2: encoder with checksum.');
    expect(roles.unexpected).toEqual([]);
    expect(roles.requests).toHaveLength(4);
  });

  it('a role with request_users_input pauses the UI; the typed answer goes back as the tool result', async () => {
    const dir = temp();
    mkdirSync(join(dir, 'asking'));
    writeFileSync(
      join(dir, 'asking', 'roles.json'),
      JSON.stringify({ asker: { name: 'Asker', level: 'base', systemMessage: 'Ask the user what you need, then answer.', tools: ['request_users_input'] } }),
    );
    writeFileSync(
      join(dir, 'asking', 'config.json'),
      JSON.stringify({
        workflow_name: 'asking',
        description: 'asks the user one question',
        input: { name: 'task', type: 'string' },
        output: { name: 'answer', type: 'string' },
        contexts: [{ name: 'talk', starting_messages: [], max_length: 10000 }],
        agents: [{ agent_role: 'asker', context: 'talk', role: 'assistant' }],
        states: [
          {
            name: 'start',
            agent: 'asker',
            input: 'common_data.task',
            transition: [{ target: 'stop', condition: 'true', before: "this.common_data.answer = this.getAgent('asker').getLastResponse()" }],
          },
          { name: 'stop' },
        ],
      }),
    );
    server = await new FakeOpenAIServer([
      reply('', { name: 'request_users_input', arguments: { question: 'Which language should the encoder be in?' } }),
      (req) => reply(`ANSWER: writing it in ${messagesOf(req).find((m) => m.role === 'tool')?.content ?? '?'}.`),
    ]).start();
    ui = new TmuxUi({ OPENAI_BASE_URL: server.baseURL, TROUPE_MODEL: 'test-model', TROUPE_DATA_DIR: temp(), TROUPE_WORKFLOWS: dir });
    await ui.waitFor('the first frame', READY);
    ui.type('/workflow asking a bech32 encoder');
    const asked = await ui.waitFor('the question', (s) => s.includes('The workflow asks you: type your answer'));
    expect(asked).toMatch(/^asking › start\s+·\s+waiting for you: Asker asks you: Which language should the encoder be in\?/m);
    expect(server.requests).toHaveLength(1);
    expect(toolsOf(server.requests[0]!)).toEqual(['request_users_input']);
    ui.type('Zig, please');
    await ui.waitFor('the answer', (s) => s.includes('workflow output') && s.includes('ANSWER: writing it in Zig, please.'));
    const sent = messagesOf(server.requests[1]!).slice(-2);
    expect(sent[0]).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'request_users_input' } }] });
    expect(sent[1]).toMatchObject({ role: 'tool', content: 'Zig, please', tool_call_id: (sent[0]!.tool_calls![0] as { id?: string }).id });
  });

  it('/workflow implement_review_debate in 80x24 shows the three branches streaming at once, one line each', async () => {
    ui = new TmuxUi({ TROUPE_DEMO_PACE_MS: '40', TROUPE_DATA_DIR: temp() }, { cols: 80, rows: 24, args: ['--demo'] });
    await ui.waitFor('the first frame', READY);
    ui.type('/workflow implement_review_debate implement bech32 in Zig');
    // The offline demo answers every tier itself: the live lines name it, not the tier's model id.
    const branchLine = (x: string) => new RegExp(`^\\S impl_${x} Implementer ${x.toUpperCase()} · demo model · \\d+ tok · \\d+s · Implementer ${x.toUpperCase()} \\(implement`);
    // One frame (the visible window, not the scrollback) with all three live lines, each showing its words.
    let frame: string[] = [];
    await ui.waitFor('three live branch lines', () => {
      frame = ui!.visible();
      return ['a', 'b', 'c'].every((x) => frame.some((l) => branchLine(x).test(l)));
    });
    expect(frame.filter((l) => /^\S impl_[abc] Implementer [ABC] · /.test(l))).toHaveLength(3);
    expect(frame.every((l) => l.length <= 80)).toBe(true);
    expect(frame.join('\n')).toMatch(/^implement_review_debate › implement\s+·\s+branches impl_a ▸ · impl_b ▸ · impl_c ▸/m);
    expect(frame.some((l) => l.startsWith('›'))).toBe(true);
    // Then the run goes on to its end, in the same window.
    await ui.waitFor('the end', (s) => s.includes('Workflow over'), 60_000);
    expect(ui.screen(5000)).toMatch(/session ended: workflow implement_review_debate complete: approved after 1\s+revision\(s\)/);
  }, 90_000);
});

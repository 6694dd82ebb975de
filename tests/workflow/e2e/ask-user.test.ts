import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { FakeOpenAIServer } from '../../helpers/fake-openai-server.js';
import { messagesOf, ofType, reply, runJson, transcriptOf } from '../../helpers/workflow-run.js';

// Seed 003's request_users_input: the workflow pauses for the user, whose answer goes back to the agent as
// the tool's result, after the one assistant message that asked (strict servers refuse two in a row).
const dir = mkdtempSync(join(tmpdir(), 'troupe-ask-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

function askingWorkflow(): string {
  const folder = join(dir, 'asking');
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'roles.json'),
    JSON.stringify({ asker: { level: 'base', systemMessage: 'Ask, then answer.', tools: ['request_users_input'] }, checker: { level: 'base', systemMessage: 'Check the answer.' } }),
  );
  writeFileSync(
    join(folder, 'config.json'),
    JSON.stringify({
      workflow_name: 'asking',
      input: { name: 'task', type: 'string' },
      output: { name: 'answer', type: 'string' },
      contexts: [{ name: 'talk', starting_messages: [], max_length: 10000 }],
      agents: [
        { agent_role: 'asker', context: 'talk', role: 'assistant' },
        { agent_role: 'checker', context: 'talk', role: 'user' },
      ],
      states: [
        { name: 'start', agent: 'asker', input: 'common_data.task', next_state: 'check' },
        { name: 'check', agent: 'checker', message: 'Is that right?', transition: [{ target: 'stop', condition: 'true', before: 'this.common_data.answer = this.last_agent_response' }] },
        { name: 'stop' },
      ],
    }),
  );
  return folder;
}

describe('request_users_input (seed 003)', () => {
  it('the answer follows the one assistant message that asked (its words and its call); the context keeps input, words, answer, reply in order', async () => {
    server = await new FakeOpenAIServer([
      reply('Let me check one thing.', { name: 'request_users_input', arguments: { question: 'Which language?' } }),
      reply('Then Zig it is.'),
      reply('Yes.'),
    ]).start();
    const env = cleanEnv({ OPENAI_BASE_URL: server.baseURL });
    const first = await runJson(['run', '--workflow', askingWorkflow(), '--input', 'write bech32'], env);
    expect(first.code).toBe(0);
    expect(ofType(first.events, 'awaiting_user')[0]).toMatchObject({ reason: 'asker asks you: Which language?' });
    const resumed = await runCli(['resume', first.id.slice(0, 8), '--json'], env, 'Zig\n');
    expect(resumed.code).toBe(0);

    const answer = messagesOf(server.requests[1]!).map((m) => ({ role: m.role, content: m.content, ...(m.tool_calls ? { call: m.tool_calls[0]!.function.name } : {}) }));
    expect(answer).toEqual([
      { role: 'system', content: 'Ask, then answer.' },
      { role: 'user', content: 'write bech32' },
      { role: 'assistant', content: 'Let me check one thing.', call: 'request_users_input' },
      { role: 'tool', content: 'Zig' },
    ]);
    for (const request of server.requests) {
      const roles = messagesOf(request).map((m) => m.role);
      expect(
        roles.some((r, i) => r === 'assistant' && roles[i + 1] === 'assistant'),
        roles.join(' '),
      ).toBe(false);
    }
    // The checker plays the user of the same context: it sees it mirrored.
    expect(
      messagesOf(server.requests[2]!)
        .slice(1)
        .map((m) => `${m.role}: ${m.content}`),
    ).toEqual(['assistant: write bech32', 'user: Let me check one thing.', 'assistant: (the user answered "Which language?": Zig)', 'user: Then Zig it is.', 'user: Is that right?']);
  });

  it('the shipped clarify_then_write asks on the offline demo model; the answer typed on resume goes on to the end', async () => {
    const env = cleanEnv();
    const first = await runJson(['run', '--workflow', 'clarify_then_write', '--input', "a toast for my sister's wedding"], env);
    expect(first.code).toBe(0);
    expect(ofType(first.events, 'awaiting_user')[0]!.reason).toMatch(/^Interviewer asks you: \(demo\) /);
    const resumed = await runCli(['resume', first.id.slice(0, 8), '--json'], env, 'Keep it short\n');
    expect(resumed.code).toBe(0);
    const events = resumed.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { type: string } & Record<string, unknown>);
    expect(transcriptOf(events).join('\n')).toMatch(/you said "Keep it short"/);
    expect(ofType(events, 'session_ended')[0]).toMatchObject({ reason: 'workflow clarify_then_write complete' });
  });
});

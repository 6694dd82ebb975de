import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { FakeOpenAIServer } from '../../helpers/fake-openai-server.js';
import { messagesOf, ofType, reply, runJson } from '../../helpers/workflow-run.js';

// Seed 003's modes: `role:<id>` is a conversation with one role (each message answered in one context, the
// session waiting for the next), `workflow:<name>` a workflow.
let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

describe("seed 003's role:<id> and workflow:<name>", () => {
  it('role:coder answers, waits for the next message, and answers it in the same conversation', async () => {
    server = await new FakeOpenAIServer([reply('Here is encode().'), reply('And here are its tests.')]).start();
    const env = cleanEnv({ OPENAI_BASE_URL: server.baseURL });
    const first = await runJson(['run', '--workflow', 'role:coder', '--input', 'Write a bech32 encoder'], env);
    expect(first.code).toBe(0);
    expect(ofType(first.events, 'awaiting_user')[0]).toMatchObject({ reason: 'Coder answered; your turn (!quit ends the chat)' });
    const resumed = await runCli(['resume', first.id.slice(0, 8), '--json'], env, 'Now add tests\n');
    expect(resumed.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    const second = messagesOf(server.requests[1]!);
    expect(second[0]!.content).toMatch(/^You are a senior software engineer/);
    expect(second.slice(1).map((m) => `${m.role}: ${m.content}`)).toEqual(['user: Write a bech32 encoder', 'assistant: Here is encode().', 'user: Now add tests']);
  });

  it('workflow:<name> is the workflow; an unknown role is one clear line', async () => {
    const named = await runJson(['run', '--workflow', 'workflow:linear_analysis', '--input', 'a haiku', '--demo'], cleanEnv());
    expect(named.code).toBe(0);
    expect(ofType(named.events, 'session_ended')[0]).toMatchObject({ reason: 'workflow linear_analysis complete' });
    const unknown = await runCli(['run', '--workflow', 'role:nobody', '--input', 'hi', '--demo'], cleanEnv());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/agents\[0\]\.agent_role: unknown role "nobody"/);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer, streamChunks } from '../helpers/fake-openai-server.js';
import { cleanEnv, runCli } from '../helpers/cli.js';

// Issue 22, item 6: on the demo, agent_started said "model":"gpt-4o" (the id the call names) while usage
// said "demo" (the model that answered). Both name the model that answers.

let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

const events = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; model?: string; persona?: string });
const modelsOf = (lines: ReturnType<typeof events>, type: string) => lines.filter((e) => e.type === type && e.persona).map((e) => e.model);

describe('agent_started and usage name the same model', () => {
  it('on the demo: "demo" in both, whatever tier the persona names', async () => {
    const { code, stdout } = await runCli(['run', 'a lighthouse game', '--json', '--max-turns', '3']);
    expect(code).toBe(0);
    const lines = events(stdout);
    expect(modelsOf(lines, 'agent_started')).toEqual(['demo', 'demo', 'demo']);
    expect(modelsOf(lines, 'usage')).toEqual(['demo', 'demo', 'demo']);
  });

  it('against a server: the model id the call names, in both', async () => {
    server = await new FakeOpenAIServer([
      { stream: streamChunks('Concept.', { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }, { usage: { prompt_tokens: 10, completion_tokens: 5 } }) },
      { stream: streamChunks('Loop.', { transition: 'RESPOND_TO_USER' }, { usage: { prompt_tokens: 10, completion_tokens: 5 } }) },
    ]).start();
    const { code, stdout } = await runCli(['run', 'a tide game', '--json'], cleanEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_MODEL_SMART: 'big-model', TROUPE_MODEL_BASE: 'small-model' }));
    expect(code).toBe(0);
    const lines = events(stdout);
    // The shipped creative_partner is on the smart tier, game_designer on base.
    expect(modelsOf(lines, 'agent_started')).toEqual(['big-model', 'small-model']);
    expect(modelsOf(lines, 'usage')).toEqual(['big-model', 'small-model']);
  });
});

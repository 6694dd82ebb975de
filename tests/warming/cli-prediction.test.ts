import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { FakeOpenAIServer, streamChunks } from '../helpers/fake-openai-server.js';

let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

type Line = { type: string; turn_id?: string; persona?: string; predictions?: { persona: string; confidence: number }[] };

describe('troupe run --json carries the prediction of who speaks next (issue 24)', () => {
  it('one prediction event while the first persona answers, naming its turn and up to three personas', async () => {
    // The chunks come 30 ms apart, so the answer is still streaming when the prediction is made (after the first words).
    server = await new FakeOpenAIServer([
      { stream: streamChunks('A keeper tends the lamp; the game designer should shape the loop.', { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }), chunkDelayMs: 30 },
      { stream: streamChunks('Loop.', { transition: 'RESPOND_TO_USER' }) },
    ]).start();
    const { code, stdout } = await runCli(['run', 'a tide game', '--json'], cleanEnv({ OPENAI_BASE_URL: server.baseURL, TROUPE_MODEL: 'test-model' }));
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    const started = lines.find((e) => e.type === 'agent_started')!;
    const predictions = lines.filter((e) => e.type === 'prediction');
    expect(predictions.length).toBeGreaterThanOrEqual(1);
    const first = predictions[0]!;
    expect(first).toMatchObject({ turn_id: started.turn_id, persona: 'creative_partner' });
    expect(first.predictions!.length).toBeGreaterThan(0);
    expect(first.predictions!.length).toBeLessThanOrEqual(3);
    for (const p of first.predictions!) expect(p.confidence).toBeGreaterThan(0);
    // Predictions go out before the answer they are about is in.
    expect(lines.indexOf(first)).toBeLessThan(lines.findIndex((e) => e.type === 'agent_message'));
  });
});

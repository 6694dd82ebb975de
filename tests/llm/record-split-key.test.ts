import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatModel } from '../../src/llm/chat-model.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { RecordingModel } from '../../src/llm/recording.js';
import { ReplayModel } from '../../src/llm/replay-model.js';
import { ToolFallbackModel } from '../../src/llm/tool-fallback.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { PriceTable } from '../../src/usage/price-table.js';
import { FakeOpenAIServer, streamChunks } from '../helpers/fake-openai-server.js';
import { fixedClock, studio, studioRunner } from '../helpers/team.js';

// Probe of `--record` files: a key that reaches the model (a user pasted it in the brief) and comes back in its
// streamed answer arrives in pieces, a few characters per delta. Each delta was redacted alone, so no piece
// looked like a key and the whole key was in the file, spread over consecutive deltas.

const KEY = 'sk-live-SECRETSECRETSECRET0123456789';
let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

async function runSession(model: ChatModel, brief: string): Promise<void> {
  const meter = new UsageMeter(new PriceTable({ 'test-model': { input: 1, output: 2 } }, 'test'));
  const { runner } = await studioRunner(model, { team: studio(), meter, id: 's' });
  runner.start(brief);
  await runner.settled();
}

const dateClock = () => {
  const clock = fixedClock();
  return () => new Date(clock());
};

type Delta = { type: string; text: string; index?: number };

describe('a key echoed in a streamed answer does not reach the recording, whatever the pieces', () => {
  it('the text and tool-argument deltas of a recorded call hold no key when joined, and the recording still replays', async () => {
    const answer = `Noted: I will call the API with ${KEY} as you asked.`;
    server = await new FakeOpenAIServer([{ stream: streamChunks(answer, { transition: 'RESPOND_TO_USER', key_decisions: [`use key ${KEY}`] }, { pieces: 17 }) }]).start();
    const file = join(mkdtempSync(join(tmpdir(), 'troupe-rec-split-')), 'session.jsonl');
    const live = new ToolFallbackModel(new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'test-key-not-the-secret', maxRetries: 0 }));
    await runSession(new RecordingModel(live, file, dateClock()), `build it; my API key is ${KEY}`);
    const calls = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === 'call');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      const deltas = call.deltas as Delta[];
      expect(deltas.length).toBeGreaterThan(0);
      const text = deltas
        .filter((d) => d.type === 'text')
        .map((d) => d.text)
        .join('');
      const args = deltas
        .filter((d) => d.type === 'tool_arguments')
        .map((d) => d.text)
        .join('');
      expect(text).not.toContain('SECRETSECRET');
      expect(args).not.toContain('SECRETSECRET');
      expect(JSON.stringify(call)).not.toContain(KEY);
    }
    await server.stop();
    server = null;
    const replay = ReplayModel.fromFile(file);
    await runSession(replay, `build it; my API key is ${KEY}`);
    expect(replay.divergence).toBeNull();
    expect(replay.remaining).toBe(0);
  });
});

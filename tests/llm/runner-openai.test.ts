import { afterEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer, streamChunks, type FakeHandler, type FakeReply, type RecordedRequest } from '../helpers/fake-openai-server.js';
import { REPO_ROOT, studioRunner } from '../helpers/team.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { ToolFallbackModel } from '../../src/llm/tool-fallback.js';
import { openTeam } from '../../src/team/open-team.js';
import { transcriptOf } from '../../src/memory/transcript.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { PriceTable } from '../../src/usage/price-table.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';

let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

async function serve(script: FakeHandler[] | ((req: RecordedRequest, i: number) => FakeReply)) {
  server = await new FakeOpenAIServer(script).start();
  return new ToolFallbackModel(new OpenAIChatModel({ baseURL: server.baseURL, maxRetries: 2, retry: { sleep: async () => {} } }));
}

const ask = { transition: 'RESPOND_TO_USER' };
const types = (events: TroupeEvent[]) => events.map((e) => e.type);

describe('Runner on an OpenAI-compatible server', () => {
  it('streams agent_delta events for text and tool arguments', async () => {
    const { runner, events } = await studioRunner(await serve([{ stream: streamChunks('Concept: a lighthouse.', ask, { pieces: 3 }) }]));
    runner.start('a lighthouse game');
    await runner.settled();
    const deltas = events.filter((e) => e.type === 'agent_delta');
    expect(
      deltas
        .filter((d) => 'text' in d && d.text)
        .map((d) => (d as { text: string }).text)
        .join(''),
    ).toBe('Concept: a lighthouse.');
    expect(
      deltas
        .filter((d) => 'tool_arguments' in d && d.tool_arguments)
        .map((d) => (d as { tool_arguments: string }).tool_arguments)
        .join(''),
    ).toBe(JSON.stringify(ask));
    expect(events.find((e) => e.type === 'agent_message')).toMatchObject({ text: 'Concept: a lighthouse.' });
  });

  it('invalid tool arguments get one repair round', async () => {
    const { runner, events } = await studioRunner(await serve([{ stream: streamChunks('My concept.', '{"transition": "HANDOFF_TO_AG', { pieces: 2 }) }, { stream: streamChunks('', ask) }]));
    runner.start('a game');
    await runner.settled();
    expect(events.find((e) => e.type === 'directive_invalid')).toMatchObject({ repairing: true, error: expect.stringMatching(/arguments are not valid JSON/) });
    expect(events.find((e) => e.type === 'directive')).toMatchObject({ directive: ask, source: 'tool' });
    const repair = server!.requests[1]!.body.messages.at(-1);
    expect(repair.content).toMatch(/did not include a valid handoff_directive/);
    expect(runner.getSnapshot().awaiting?.code).toBe('respond_to_user');
  });

  it('a 500 that outlasts the retries pauses the session with a one-line reason; !continue retries the call', async () => {
    const boom: FakeReply = { status: 500, body: { error: { message: 'upstream exploded' } } };
    const { runner, events } = await studioRunner(await serve([boom, boom, boom, { stream: streamChunks('Back again.', ask) }]));
    runner.start('a game');
    await runner.settled();
    expect(runner.getSnapshot().awaiting?.code).toBe('failure');
    expect(runner.getSnapshot().awaiting?.reason).toBe("Creative Partner's turn failed: model server error 500: upstream exploded (after 2 retries); !continue retries");
    expect(events.find((e) => e.type === 'error')).toMatchObject({ message: 'model server error 500: upstream exploded (after 2 retries)' });
    runner.send({ type: 'user_continue' });
    await runner.settled();
    expect(events.filter((e) => e.type === 'agent_message').map((e) => (e as { text: string }).text)).toEqual(['Back again.']);
    expect(server!.requests.length).toBe(4);
  });

  it('an interjection aborts the call mid-stream: the turn is recorded as aborted and the persona answers the user', async () => {
    const { runner, events } = await studioRunner(
      await serve([{ stream: streamChunks('A long answer that keeps on going and going', ask, { pieces: 8 }), chunkDelayMs: 30 }, { stream: streamChunks('Noted, adjusting.', ask) }]),
    );
    let interjected = false;
    runner.subscribe((e) => {
      if (e.type !== 'agent_delta' || interjected) return;
      interjected = true;
      runner.send({ type: 'user_message', text: 'make it about cats' });
    });
    runner.start('a game');
    await runner.settled();
    expect(events.find((e) => e.type === 'agent_aborted')).toMatchObject({ reason: 'user interjected' });
    expect(transcriptOf(events).find((t) => t.kind === 'agent' && t.status === 'aborted')).toBeDefined();
    const messages = events.filter((e) => e.type === 'agent_message').map((e) => (e as { text: string }).text);
    expect(messages).toEqual(['Noted, adjusting.']);
    expect(server!.requests[1]!.body.messages.at(-1).content).toContain('make it about cats');
  });

  it('a server that ignores tools: the repair round asks for JSON, and the session carries on', async () => {
    const { runner, events } = await studioRunner(
      await serve((req) => (req.body.response_format ? { stream: streamChunks(JSON.stringify({ ...ask, content: 'As JSON now.' })) } : { stream: streamChunks('I just talk, no tools.') })),
    );
    runner.start('a game');
    await runner.settled();
    expect(types(events)).toContain('directive_invalid');
    expect(events.find((e) => e.type === 'directive')).toMatchObject({ source: 'text' });
    expect(runner.getSnapshot().awaiting?.code).toBe('respond_to_user');
  });

  it('personas on different models in one session, metered per persona and model with cost', async () => {
    const team = openTeam(REPO_ROOT, {}, { TROUPE_MODEL_SMART: 'gpt-4o', TROUPE_MODEL_BASE: 'local-llm' });
    const model = await serve([
      { stream: streamChunks('Concept.', { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }, { usage: { prompt_tokens: 1000, completion_tokens: 100 } }) },
      { stream: streamChunks('Loop.', ask, { usage: { prompt_tokens: 2000, completion_tokens: 200 } }) },
    ]);
    const meter = new UsageMeter(new PriceTable({ 'gpt-4o': { input: 2.5, output: 10 } }, 'test'));
    const { runner, events } = await studioRunner(model, { team, meter });
    runner.start('a game');
    await runner.settled();
    expect(server!.requests.map((r) => r.body.model)).toEqual(['gpt-4o', 'local-llm']);
    const usage = events.filter((e) => e.type === 'usage');
    expect(usage).toEqual([
      { ...usage[0], persona: 'creative_partner', model: 'gpt-4o', prompt_tokens: 1000, completion_tokens: 100, cost: 0.0035, total_tokens: 1100, total_cost: 0.0035 },
      // local-llm has no price: tokens only, never a guess.
      { ...usage[1], persona: 'game_designer', model: 'local-llm', prompt_tokens: 2000, completion_tokens: 200, cost: null, total_tokens: 3300, total_cost: 0.0035 },
    ]);
    expect(meter.byPersona.get('game_designer')?.promptTokens).toBe(2000);
  });
});

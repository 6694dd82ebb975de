import { afterEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer, streamChunks, type FakeReply, type RecordedRequest } from '../helpers/fake-openai-server.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { ToolFallbackModel } from '../../src/llm/tool-fallback.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { ModelCallError } from '../../src/llm/errors.js';
import { directiveTool } from '../../src/directive/tool.js';
import type { ChatRequest } from '../../src/llm/chat-model.js';
import { studioRunner } from '../helpers/team.js';

let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

const reply = { transition: 'RESPOND_TO_USER', content: 'Here is the concept; what do you think?' };

/** A server without tool calling: rejects `tools`, answers JSON mode with a directive object. */
function toollessServer(rejectResponseFormat = false) {
  return (req: RecordedRequest): FakeReply => {
    if (req.body.tools) return { status: 400, body: { error: { message: '"tools" is not supported by this model' } } };
    if (rejectResponseFormat && req.body.response_format) return { status: 400, body: { error: { message: 'response_format json_object is not supported' } } };
    return { stream: streamChunks(JSON.stringify(reply)) };
  };
}

function adapter(s: FakeOpenAIServer): OpenAIChatModel {
  return new OpenAIChatModel({ baseURL: s.baseURL, maxRetries: 0 });
}

const request = (model = 'local-llm'): ChatRequest => ({
  model,
  messages: [
    { role: 'system', content: 'You are the CEO.' },
    { role: 'user', content: 'Go.' },
  ],
  tools: [directiveTool()],
  meta: { purpose: 'persona', persona: 'ceo' },
});

describe('ToolFallbackModel', () => {
  it('falls back to JSON mode when the server rejects tools, and remembers it per model id', async () => {
    server = await new FakeOpenAIServer(toollessServer()).start();
    const switches: string[] = [];
    const model = new ToolFallbackModel(adapter(server), (i) => switches.push(`${i.model}:${i.channel}`));
    const first = await model.generate(request());
    expect(JSON.parse(first.text)).toEqual(reply);
    await model.generate(request());
    expect(server.requests.map((r) => Boolean(r.body.tools))).toEqual([true, false, false]);
    const json = server.requests[1]!.body;
    expect(json.response_format).toEqual({ type: 'json_object' });
    expect(json.messages.filter((m: { role: string }) => m.role === 'system')).toHaveLength(1);
    expect(json.messages[0].content).toMatch(/^You are the CEO\.\n\nTool calling is not available here\. Reply with ONE JSON object/);
    expect(json.messages[0].content).toContain('"handoff_directive"');
    expect(switches).toEqual(['local-llm:json']);
    // Another model id on the same server still starts with tools.
    await model.generate(request('other-llm'));
    expect(server.requests[3]!.body.tools).toBeDefined();
  });

  it('drops response_format too when the server rejects it', async () => {
    server = await new FakeOpenAIServer(toollessServer(true)).start();
    const model = new ToolFallbackModel(adapter(server));
    await model.generate(request());
    expect(server.requests.map((r) => [Boolean(r.body.tools), Boolean(r.body.response_format)])).toEqual([
      [true, false],
      [false, true],
      [false, false],
    ]);
    expect(model.channels.get('local-llm')).toBe('plain');
  });

  it('switches after two answers in a row without a tool call (not after one cut off by length, not after one alone)', async () => {
    const inner = new ScriptedModel([
      { text: 'cut off', finishReason: 'length' },
      { text: 'no tool call here' },
      { directive: reply },
      { text: 'no tool call here' },
      { text: 'none again' },
      { text: JSON.stringify(reply) },
    ]);
    const model = new ToolFallbackModel(inner);
    await model.generate(request());
    await model.generate(request());
    await model.generate(request()); // a tool call in between resets the count
    await model.generate(request());
    expect(model.channels.has('local-llm')).toBe(false);
    // The second answer in a row without one switches, and that call is asked again in JSON mode at once.
    expect(JSON.parse((await model.generate(request())).text)).toEqual(reply);
    expect(model.channels.get('local-llm')).toBe('json');
    expect(inner.calls[5]!.tools).toBeUndefined();
    expect(inner.calls[5]!.jsonMode).toBe(true);
  });

  it('passes other 400s through', async () => {
    const model = new ToolFallbackModel(new ScriptedModel([{ error: new ModelCallError('model server error 400: context too long', false, { status: 400 }) }]));
    await expect(model.generate(request())).rejects.toThrow('context too long');
    expect(model.channels.size).toBe(0);
  });

  it('a session on a tool-less server reads the directive from the JSON text', async () => {
    server = await new FakeOpenAIServer(toollessServer()).start();
    const { runner, events } = await studioRunner(new ToolFallbackModel(adapter(server)));
    runner.start('a game about tides');
    await runner.settled();
    const directive = events.find((e) => e.type === 'directive');
    expect(directive).toMatchObject({ source: 'text', directive: { transition: 'RESPOND_TO_USER' } });
    expect(events.find((e) => e.type === 'agent_message')).toMatchObject({ text: reply.content });
    expect(runner.getSnapshot().status).toBe('awaiting_user');
    expect(runner.getSnapshot().awaiting?.code).toBe('respond_to_user');
  });
});

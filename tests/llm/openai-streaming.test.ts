import { describe, expect, it } from 'vitest';
import { fakeServerPerTest, streamChunks, type FakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import type { ChatDelta, ChatRequest } from '../../src/llm/chat-model.js';
import { AbortedError, ModelCallError } from '../../src/llm/errors.js';
import { directiveTool } from '../../src/directive/tool.js';
import { parseDirective } from '../../src/directive/parse.js';

const serve = fakeServerPerTest();

const noSleep = { sleep: async () => {}, random: () => 0.5 };

function model(s: FakeOpenAIServer, extra: Partial<ConstructorParameters<typeof OpenAIChatModel>[0]> = {}): OpenAIChatModel {
  return new OpenAIChatModel({ baseURL: s.baseURL, apiKey: 'sk-test-key-not-real-0000', maxRetries: 2, retry: noSleep, ...extra });
}

function request(deltas: ChatDelta[] = [], extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'test-model',
    messages: [
      { role: 'system', content: 'You are the CEO.' },
      { role: 'user', content: 'Go.' },
    ],
    tools: [directiveTool()],
    meta: { purpose: 'persona', persona: 'ceo' },
    onDelta: (d) => deltas.push(d),
    ...extra,
  };
}

describe('OpenAIChatModel streaming', () => {
  it('assembles text and tool-call argument deltas into the response and the directive', async () => {
    const directive = { transition: 'HANDOFF_TO_AGENT', next_agent: 'cfo', urgency: 0.7 };
    const s = await serve([{ stream: streamChunks('We should price this first.', directive, { pieces: 4 }) }]);
    const deltas: ChatDelta[] = [];
    const response = await model(s).generate(request(deltas));

    expect(response.text).toBe('We should price this first.');
    expect(response.toolCalls).toEqual([{ id: 'call_1', name: 'handoff_directive', arguments: JSON.stringify(directive) }]);
    expect(response.finishReason).toBe('tool_calls');
    const text = deltas.filter((d) => d.type === 'text');
    const args = deltas.filter((d) => d.type === 'tool_arguments');
    expect(text.length).toBe(4);
    expect(text.map((d) => d.text).join('')).toBe(response.text);
    expect(args.length).toBeGreaterThan(1);
    expect(args.map((d) => d.text).join('')).toBe(JSON.stringify(directive));
    expect(args[0]).toMatchObject({ index: 0, name: 'handoff_directive' });
    const parsed = parseDirective(response);
    expect(parsed.ok && parsed.directive.next_agent).toBe('cfo');

    const body = s.requests[0]!.body;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.tools[0].function.name).toBe('handoff_directive');
  });

  it('reads usage from the final chunk of a streamed response', async () => {
    const s = await serve([{ stream: streamChunks('hi', { transition: 'COMPLETE' }, { usage: { prompt_tokens: 123, completion_tokens: 45 }, model: 'gpt-4o-2024-08-06' }) }]);
    const response = await model(s).generate(request());
    expect(response.usage).toEqual({ promptTokens: 123, completionTokens: 45 });
    expect(response.model).toBe('gpt-4o-2024-08-06');
  });

  it('gives null usage when the server sends none, and drops stream_options once a server rejects it', async () => {
    const s = await serve([
      { status: 400, body: { error: { message: 'Unrecognized request argument supplied: stream_options' } } },
      { stream: streamChunks('a', { transition: 'COMPLETE' }, { usage: null }) },
      { stream: streamChunks('b', { transition: 'COMPLETE' }, { usage: null }) },
    ]);
    const m = model(s);
    expect((await m.generate(request())).usage).toBeNull();
    await m.generate(request());
    expect(s.requests.map((r) => r.body.stream_options)).toEqual([{ include_usage: true }, undefined, undefined]);
  });

  it('aborts mid-stream through the signal with AbortedError', async () => {
    const s = await serve([{ stream: streamChunks('one two three four five six', undefined, { pieces: 6 }), chunkDelayMs: 40 }]);
    const controller = new AbortController();
    const deltas: ChatDelta[] = [];
    const pending = model(s).generate(
      request([], {
        signal: controller.signal,
        onDelta: (d) => {
          deltas.push(d);
          controller.abort();
        },
      }),
    );
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
    expect(deltas.length).toBe(1);
    expect(s.requests.length).toBe(1);
  });

  it('does not call the server when the signal is already aborted', async () => {
    const s = await serve([]);
    const controller = new AbortController();
    controller.abort();
    await expect(model(s).generate(request([], { signal: controller.signal }))).rejects.toBeInstanceOf(AbortedError);
    expect(s.requests.length).toBe(0);
  });

  it('retries a malformed SSE stream that had not started, and fails a stream that breaks after deltas', async () => {
    const s = await serve([
      { stream: ['{"choices": [ this is not json'] },
      { stream: streamChunks('fine', { transition: 'COMPLETE' }) },
      { stream: [...streamChunks('partial answer', undefined, { pieces: 2 }).slice(0, 2), 'garbage{'] },
    ]);
    const m = model(s);
    expect((await m.generate(request())).text).toBe('fine');
    const error = await m.generate(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).message).toMatch(/^malformed stream from the model server at 127\.0\.0\.1:\d+ .*\(after the answer had started streaming\)$/);
    expect((error as ModelCallError).retryable).toBe(false);
    expect(s.requests.length).toBe(3);
  });

  it('retries an answer with no choices, then reports it in one line', async () => {
    const usageOnly = [{ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [], usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 } }];
    const s = await serve([{ stream: usageOnly }, { stream: streamChunks('ok', { transition: 'COMPLETE' }) }, { stream: usageOnly }, { stream: usageOnly }, { stream: usageOnly }]);
    const m = model(s);
    expect((await m.generate(request())).text).toBe('ok');
    await expect(m.generate(request())).rejects.toThrow(/returned no choices \(after 2 retries\)$/);
  });

  it('returns a reply cut off by length as it is, so the engine can repair the directive', async () => {
    const s = await serve([{ stream: streamChunks('The plan is to', '{"transition": "HANDOFF_TO', { finishReason: 'length' }) }]);
    const response = await model(s).generate(request());
    expect(response.finishReason).toBe('length');
    expect(response.text).toBe('The plan is to');
    const parsed = parseDirective(response);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(/not valid JSON/);
  });

  it('sends response_format json_object and no tools in JSON mode', async () => {
    const s = await serve([{ stream: streamChunks('{"transition":"COMPLETE","content":"done"}') }]);
    await model(s).generate(request([], { jsonMode: true }));
    expect(s.requests[0]!.body.response_format).toEqual({ type: 'json_object' });
    expect(s.requests[0]!.body.tools).toBeUndefined();
  });
});

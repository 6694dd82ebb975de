import { describe, expect, it } from 'vitest';
import { fakeServerPerTest, streamChunks, type FakeReply, type RecordedRequest } from '../helpers/fake-openai-server.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { ToolFallbackModel } from '../../src/llm/tool-fallback.js';
import { directiveToolRequest } from '../../src/directive/tool.js';
import { parseDirective, repairPrompt } from '../../src/directive/parse.js';
import type { ChatRequest } from '../../src/llm/chat-model.js';
import { studioRunner } from '../helpers/team.js';
import { fixture } from '../fixtures/hostile-b/inputs.js';

const serve = fakeServerPerTest();
const TRUNCATED = fixture('truncated-directive-args.txt');
const GOOD = { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' };

/** A stream with text and a tool call whose arguments stop mid-object; `named: false` leaves out the function name, as some servers do. */
function garbledCall(named: boolean): FakeReply {
  const base = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'test-model' };
  const chunk = (delta: unknown, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const fn = (args: string) => (named ? { name: 'handoff_directive', arguments: args } : { arguments: args });
  return {
    stream: [
      chunk({ role: 'assistant', content: 'Here is the concept.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: fn(TRUNCATED.slice(0, 20)) }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: TRUNCATED.slice(20) } }] }),
      chunk({}, 'tool_calls'),
    ],
  };
}

const good = (): FakeReply => ({ stream: streamChunks('', GOOD) });
const body = (r: RecordedRequest) => r.body as { tools?: unknown[]; tool_choice?: unknown; response_format?: unknown };

/** The repair request the runtime builds (issue 10, item 11): same prompt plus the repair message, the tool forced by name. */
function repairRequest(first: ChatRequest, error: string, prior: string): ChatRequest {
  return { ...first, ...directiveToolRequest({ repair: error }), messages: [...first.messages, { role: 'assistant', content: prior }, { role: 'user', content: repairPrompt(error) }] };
}

const firstRequest = (): ChatRequest => ({
  model: 'local-llm',
  messages: [{ role: 'user', content: 'The brief: a lighthouse game' }],
  ...directiveToolRequest({}),
  meta: { purpose: 'persona', persona: 'creative_partner' },
});

describe('a malformed tool call is repaired with the tool (issue 10, item 11)', () => {
  for (const named of [true, false]) {
    it(`keeps tools and carries the JSON error when the arguments are truncated${named ? '' : ' and the call has no name'}`, async () => {
      const s = await serve([garbledCall(named), good()]);
      const model = new ToolFallbackModel(new OpenAIChatModel({ baseURL: s.baseURL, maxRetries: 0 }));
      const { runner, events } = await studioRunner(model);
      runner.start('A lighthouse game');
      await runner.settled();
      const invalid = events.find((e) => e.type === 'directive_invalid');
      expect(invalid).toMatchObject({ error: expect.stringMatching(/^handoff_directive arguments are not valid JSON \(Unexpected end of JSON input; it ends with ".*next_agent\\": "\)$/) });
      // The repair round offers the tool again; nothing switched to JSON mode.
      expect(body(s.requests[1]!).tools).toHaveLength(1);
      expect(body(s.requests[1]!).response_format).toBeUndefined();
      expect(model.channels.size).toBe(0);
      expect(events.find((e) => e.type === 'directive')).toMatchObject({ directive: GOOD, source: 'tool' });
    });
  }

  it('forces the tool by name in the repair round the runtime builds', async () => {
    const s = await serve([garbledCall(true), good()]);
    const model = new ToolFallbackModel(new OpenAIChatModel({ baseURL: s.baseURL, maxRetries: 0 }));
    const first = firstRequest();
    const answer = await model.generate(first);
    const parsed = parseDirective(answer);
    if (parsed.ok) throw new Error('expected a parse error');
    const repaired = await model.generate(repairRequest(first, parsed.error, answer.text));
    expect(body(s.requests[0]!).tool_choice).toBe('auto');
    expect(body(s.requests[1]!).tool_choice).toEqual({ type: 'function', function: { name: 'handoff_directive' } });
    expect(body(s.requests[1]!).tools).toHaveLength(1);
    expect(parseDirective(repaired)).toMatchObject({ ok: true, directive: GOOD });
  });

  it('falls back to tool_choice "required", then "auto", where the server refuses a named choice (remembered per model)', async () => {
    const refuse =
      (what: string) =>
      (r: RecordedRequest): FakeReply =>
        JSON.stringify(body(r).tool_choice ?? null).includes(what) ? { status: 400, body: { error: { message: `tool_choice ${what} is not supported` } } } : good();
    const s = await serve([garbledCall(true), refuse('function'), refuse('required'), refuse('function')]);
    const model = new ToolFallbackModel(new OpenAIChatModel({ baseURL: s.baseURL, maxRetries: 0 }));
    const first = firstRequest();
    const answer = await model.generate(first);
    const error = (parseDirective(answer) as { error: string }).error;
    expect(parseDirective(await model.generate(repairRequest(first, error, answer.text)))).toMatchObject({ ok: true });
    expect(s.requests.slice(1).map((r) => body(r).tool_choice)).toEqual([{ type: 'function', function: { name: 'handoff_directive' } }, 'required', 'auto']);
    expect(model.forcing.get('local-llm')).toBe('none');
    expect(model.channels.size).toBe(0);
  });

  it('switches to JSON mode only for a server that ignores the tool even when forced, and re-sends that call at once', async () => {
    const s = await serve([
      { stream: streamChunks('I would rather talk.', undefined) },
      { stream: streamChunks('Still talking.', undefined) },
      { stream: streamChunks(JSON.stringify(GOOD), undefined) },
    ]);
    const switches: string[] = [];
    const model = new ToolFallbackModel(new OpenAIChatModel({ baseURL: s.baseURL, maxRetries: 0 }), (i) => switches.push(`${i.channel}: ${i.why}`));
    const first = firstRequest();
    const answer = await model.generate(first);
    expect(model.channels.size).toBe(0); // one answer without a tool call is not "never calls tools"
    const error = (parseDirective(answer) as { error: string }).error;
    const repaired = await model.generate(repairRequest(first, error, answer.text));
    expect(parseDirective(repaired)).toMatchObject({ ok: true, source: 'text', directive: GOOD });
    expect(switches).toEqual(['json: it answered without a tool call even when told to call one']);
    expect(body(s.requests[2]!).tools).toBeUndefined();
    expect(body(s.requests[2]!).response_format).toEqual({ type: 'json_object' });
  });
});

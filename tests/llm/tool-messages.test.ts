import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeServerPerTest, streamChunks } from '../helpers/fake-openai-server.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { toJsonRequest, toolMessagesAsText } from '../../src/llm/json-mode.js';
import { RecordingModel } from '../../src/llm/recording.js';
import { ReplayModel } from '../../src/llm/replay-model.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { ModelCallError } from '../../src/llm/errors.js';
import { messageTokens } from '../../src/memory/tokens.js';
import type { ChatMessage, ChatRequest } from '../../src/llm/chat-model.js';

const serve = fakeServerPerTest();

const conversation: ChatMessage[] = [
  { role: 'system', content: 'You write code.' },
  { role: 'user', content: 'Add a README.' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'call_a', name: 'write_file', arguments: '{"path":"README.md","content":"hi"}' }] },
  { role: 'tool', toolCallId: 'call_a', name: 'write_file', content: 'wrote README.md (2 bytes)' },
  { role: 'assistant', content: 'Checking.', toolCalls: [{ id: 'call_b', name: 'read_file', arguments: '{"path":"README.md"}' }] },
  { role: 'tool', toolCallId: 'call_b', name: 'read_file', content: 'hi' },
];

const request = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'test-model',
  messages: conversation,
  tools: [{ name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
  meta: { purpose: 'workflow', persona: 'coder' },
  ...extra,
});

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe('tool messages in the OpenAI-compatible adapter', () => {
  it('sends assistant tool_calls and tool messages with tool_call_id', async () => {
    const s = await serve([{ stream: streamChunks('Done.') }]);
    const model = new OpenAIChatModel({ baseURL: s.baseURL, apiKey: 'sk-test', maxRetries: 0 });
    const response = await model.generate(request());
    expect(response.text).toBe('Done.');
    const sent = s.requests[0]!.body.messages;
    expect(sent[0]).toEqual({ role: 'system', content: 'You write code.' });
    expect(sent[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'write_file', arguments: '{"path":"README.md","content":"hi"}' } }],
    });
    expect(sent[3]).toEqual({ role: 'tool', tool_call_id: 'call_a', content: 'wrote README.md (2 bytes)' });
    expect(sent[4].content).toBe('Checking.');
    expect(sent[4].tool_calls[0].id).toBe('call_b');
    expect(sent[5]).toEqual({ role: 'tool', tool_call_id: 'call_b', content: 'hi' });
  });

  it('plain assistant messages go out unchanged (no tool_calls key)', async () => {
    const s = await serve([{ stream: streamChunks('ok') }]);
    const model = new OpenAIChatModel({ baseURL: s.baseURL, apiKey: 'sk-test', maxRetries: 0 });
    await model.generate(
      request({
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
          { role: 'user', content: 'c' },
        ],
      }),
    );
    expect(s.requests[0]!.body.messages[1]).toEqual({ role: 'assistant', content: 'b' });
  });
});

describe('tool messages without tools (JSON mode)', () => {
  it('renders calls into the assistant text and results as user messages', () => {
    const text = toolMessagesAsText(conversation);
    expect(text.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(text[2]!.content).toBe('[called tool write_file with {"path":"README.md","content":"hi"}]');
    expect(text[3]!.content).toBe('[result of tool write_file]:\nwrote README.md (2 bytes)');
    expect(text[4]!.content).toBe('Checking.\n[called tool read_file with {"path":"README.md"}]');
    expect(text.some((m) => 'toolCalls' in m || 'toolCallId' in m)).toBe(false);
  });

  it('toJsonRequest sends no tool messages', () => {
    const json = toJsonRequest(request(), true);
    expect(json.tools).toBeUndefined();
    expect(json.messages.every((m) => m.role !== 'tool' && !(m.role === 'assistant' && m.toolCalls))).toBe(true);
  });
});

describe('tool messages in recordings', () => {
  it('a recording keeps tool calls and results; a replay answers the same request and notices a changed result', async () => {
    dir = mkdtempSync(join(tmpdir(), 'troupe-toolrec-'));
    const file = join(dir, 'rec.jsonl');
    const recording = new RecordingModel(new ScriptedModel([{ text: 'Done.' }]), file, () => new Date(0));
    await recording.generate(request());
    const line = JSON.parse(readFileSync(file, 'utf8').trim().split('\n')[1]!);
    expect(line.request.messages[2].toolCalls[0]).toEqual({ id: 'call_a', name: 'write_file', arguments: '{"path":"README.md","content":"hi"}' });
    expect(line.request.messages[3]).toMatchObject({ role: 'tool', toolCallId: 'call_a', name: 'write_file' });

    expect((await ReplayModel.fromFile(file).generate(request())).text).toBe('Done.');
    const changed = conversation.map((m) => (m.role === 'assistant' && m.toolCalls ? { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c, arguments: '{}' })) } : m));
    const replay = ReplayModel.fromFile(file);
    await expect(replay.generate(request({ messages: changed }))).rejects.toBeInstanceOf(ModelCallError);
    expect(replay.divergence).toMatch(/messages\[2\] \(assistant\) tool calls differ/);
  });
});

describe('tool messages in token counts', () => {
  it('an assistant message counts its tool calls', () => {
    const bare: ChatMessage = { role: 'assistant', content: '' };
    expect(messageTokens(conversation[2]!)).toBeGreaterThan(messageTokens(bare) + 5);
  });
});

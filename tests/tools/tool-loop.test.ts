import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { ScriptedModel, type ScriptStep } from '../../src/llm/scripted-model.js';
import { AbortedError } from '../../src/llm/errors.js';
import type { ChatRequest } from '../../src/llm/chat-model.js';
import type { ToolSpec } from '../../src/directive/tool.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { MeteredModel } from '../../src/usage/metered-model.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { PriceTable } from '../../src/usage/price-table.js';
import { createToolset } from '../../src/tools/toolset.js';
import { runToolLoop, type ToolEvent } from '../../src/tools/tool-loop.js';

const temp = tempDirPerTest('troupe-loop-');

const reviewWork: ToolSpec = { name: 'review_work', description: 'Say whether the work needs changes.', parameters: { type: 'object', properties: { improvement_needed: { type: 'boolean' } } } };

function request(extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'test-model',
    messages: [
      { role: 'system', content: 'You are a coder.' },
      { role: 'user', content: 'Add hello.txt.' },
    ],
    tools: [reviewWork],
    meta: { purpose: 'workflow', persona: 'coder' },
    ...extra,
  };
}

const call = (name: string, args: unknown): ScriptStep => ({ toolCalls: [{ name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }] });

describe('runToolLoop', () => {
  it('runs write_file, sends the result back, and returns the answer with usage summed', async () => {
    const ws = temp();
    const model = new ScriptedModel([
      { ...call('write_file', { path: 'hello.txt', content: 'hello\n' }), text: 'Writing it.', usage: { promptTokens: 100, completionTokens: 10 } },
      { text: 'Done: hello.txt holds a greeting.', usage: { promptTokens: 130, completionTokens: 8, cachedTokens: 64 } },
    ]);
    const events: ToolEvent[] = [];
    const req = request();
    const result = await runToolLoop({ model, request: req, toolset: createToolset({ workspace: ws }), maxSteps: 5, onTool: (e) => events.push(e) });

    expect(readFileSync(join(ws, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(result.stop).toBe('answered');
    expect(result.calls).toBe(2);
    expect(result.response).toMatchObject({ text: 'Done: hello.txt holds a greeting.', toolCalls: [], usage: { promptTokens: 230, completionTokens: 18, cachedTokens: 64 } });
    expect(result.transcript).toEqual([
      { role: 'assistant', content: 'Writing it.', toolCalls: [{ id: 'call_1_1', name: 'write_file', arguments: '{"path":"hello.txt","content":"hello\\n"}' }] },
      { role: 'tool', toolCallId: 'call_1_1', name: 'write_file', content: 'created hello.txt (6 B)' },
    ]);
    expect(events).toEqual([
      { phase: 'started', tool: 'write_file', summary: 'write_file hello.txt', callId: 'call_1_1' },
      { phase: 'finished', tool: 'write_file', summary: 'write_file hello.txt', callId: 'call_1_1', ok: true },
    ]);
    // Each call offered the request's tools and the toolset's; the second saw the tool traffic.
    expect(model.calls[0]!.tools!.map((t) => t.name)).toEqual(['review_work', 'read_file', 'write_file', 'edit_file', 'list_files', 'search_files', 'run_command']);
    expect(model.calls[1]!.messages.slice(2)).toEqual(result.transcript);
    expect(req.messages).toHaveLength(2);
    model.assertComplete();
  });

  it('an unknown tool and bad arguments are errors the model reads, and the loop goes on', async () => {
    const ws = temp();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'teleport', arguments: '{}' },
          { id: 'b', name: 'read_file', arguments: '{"path": ' },
          { id: 'c', name: 'read_file', arguments: '{"file":"x"}' },
        ],
      },
      { text: 'I give up on those.' },
    ]);
    const result = await runToolLoop({ model, request: request(), toolset: createToolset({ workspace: ws }), maxSteps: 10 });
    const results = result.transcript.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(results[0]).toMatch(/^Error: unknown tool "teleport"/);
    expect(results[1]).toMatch(/^Error: the arguments of read_file are not valid JSON/);
    expect(results[2]).toMatch(/^Error: bad arguments for read_file: path: /);
    expect(result.steps.map((s) => s.outcome.ok)).toEqual([false, false, false]);
    expect(result.response.text).toBe('I give up on those.');
  });

  it("a call to one of the request's own tools ends the loop and is returned for the engine; agent tools in the same answer still run", async () => {
    const ws = temp();
    const model = new ScriptedModel([
      {
        text: 'Fixed and reviewed.',
        toolCalls: [
          { name: 'write_file', arguments: JSON.stringify({ path: 'fix.txt', content: 'ok' }) },
          { id: 'rv', name: 'review_work', arguments: '{"improvement_needed":false}' },
        ],
      },
    ]);
    const result = await runToolLoop({ model, request: request(), toolset: createToolset({ workspace: ws }), maxSteps: 5 });
    expect(result.stop).toBe('own_tool');
    expect(result.response.toolCalls).toEqual([{ id: 'rv', name: 'review_work', arguments: '{"improvement_needed":false}' }]);
    expect(readFileSync(join(ws, 'fix.txt'), 'utf8')).toBe('ok');
    expect(result.calls).toBe(1);
  });

  it('a model that keeps calling tools is stopped at maxSteps: one last call without agent tools, with a note', async () => {
    const ws = temp();
    writeFileSync(join(ws, 'a.txt'), 'a');
    const model = new ScriptedModel([
      call('list_files', {}),
      {
        toolCalls: [
          { name: 'list_files', arguments: '{}' },
          { name: 'read_file', arguments: '{"path":"a.txt"}' },
        ],
      },
      {
        text: 'Out of steps; here is what I have.',
        toolCalls: [
          { name: 'list_files', arguments: '{}' },
          { name: 'review_work', arguments: '{"improvement_needed":true}' },
        ],
      },
    ]);
    const result = await runToolLoop({ model, request: request(), toolset: createToolset({ workspace: ws }), maxSteps: 2 });
    expect(result.stop).toBe('max_steps');
    expect(result.calls).toBe(3);
    expect(result.steps.map((s) => [s.call.name, s.outcome.ok])).toEqual([
      ['list_files', true],
      ['list_files', true],
      ['read_file', false],
    ]);
    expect(result.steps[2]!.outcome.content).toBe('Error: not run: the 2 tool steps of this turn are used up');
    const last = model.calls[2]!;
    expect(last.tools!.map((t) => t.name)).toEqual(['review_work']);
    expect(last.messages[last.messages.length - 1]).toEqual({
      role: 'user',
      content: 'You have used all 2 tool steps of this turn; no more file or command tools will run. Give your final answer now and call review_work.',
    });
    expect(result.response.text).toBe('Out of steps; here is what I have.');
    // The agent-tool call in the last answer is dropped; the engine's own tool call is kept.
    expect(result.response.toolCalls.map((c) => c.name)).toEqual(['review_work']);
    model.assertComplete();
  });

  it('the last call after maxSteps offers no tools at all when the request has none of its own', async () => {
    const ws = temp();
    const model = new ScriptedModel([call('list_files', {}), { text: 'done' }]);
    const result = await runToolLoop({ model, request: request({ tools: [], toolChoice: 'required' }), toolset: createToolset({ workspace: ws }), maxSteps: 1 });
    expect(result.stop).toBe('max_steps');
    expect(model.calls[1]!.tools).toBeUndefined();
    expect(model.calls[1]!.toolChoice).toBeUndefined();
  });

  it("with maxSteps 0 the turn is one plain call with only the request's tools", async () => {
    const model = new ScriptedModel([{ text: 'no tools for me' }]);
    const result = await runToolLoop({ model, request: request(), toolset: createToolset({ workspace: temp() }), maxSteps: 0 });
    expect(result).toMatchObject({ stop: 'max_steps', calls: 1, transcript: [] });
    expect(model.calls[0]!.tools!.map((t) => t.name)).toEqual(['review_work']);
    expect(model.calls[0]!.messages).toHaveLength(2);
  });

  it('usage is metered once per call by a metered model and summed on the result', async () => {
    const ws = temp();
    const meter = new UsageMeter(new PriceTable({}, 'test'));
    const inner = new ScriptedModel([
      { ...call('list_files', {}), usage: { promptTokens: 10, completionTokens: 1 } },
      { text: 'ok', usage: { promptTokens: 20, completionTokens: 2 } },
    ]);
    const result = await runToolLoop({ model: new MeteredModel(inner, meter), request: request(), toolset: createToolset({ workspace: ws }), maxSteps: 3 });
    expect(result.response.usage).toEqual({ promptTokens: 30, completionTokens: 3 });
    expect(meter.session).toMatchObject({ calls: 2, promptTokens: 30, completionTokens: 3 });
  });

  it('an abort between tool runs stops the loop', async () => {
    const ws = temp();
    const controller = new AbortController();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'list_files', arguments: '{}' },
          { name: 'write_file', arguments: '{"path":"late.txt","content":"x"}' },
        ],
      },
    ]);
    const run = runToolLoop({
      model,
      request: request({ signal: controller.signal }),
      toolset: createToolset({ workspace: ws }),
      maxSteps: 5,
      onTool: (e) => e.phase === 'finished' && controller.abort(),
    });
    await expect(run).rejects.toBeInstanceOf(AbortedError);
    expect(() => readFileSync(join(ws, 'late.txt'))).toThrow();
  });

  it('an abort during a command kills it and stops the loop', async () => {
    const ws = temp();
    const controller = new AbortController();
    const model = new ScriptedModel([call('run_command', { command: 'sleep 1000' })]);
    const run = runToolLoop({
      model,
      request: request({ signal: controller.signal }),
      toolset: createToolset({ workspace: ws, commands: { mode: 'allow', allow: ['sleep'] } }),
      maxSteps: 5,
      onTool: (e) => e.phase === 'started' && queueMicrotask(() => controller.abort()),
    });
    await expect(run).rejects.toBeInstanceOf(AbortedError);
  });

  it("refuses a toolset whose tool names clash with the request's own tools", async () => {
    const ws = temp();
    const clash: ToolSpec = { name: 'read_file', description: 'x', parameters: {} };
    await expect(runToolLoop({ model: new ScriptedModel([]), request: request({ tools: [clash] }), toolset: createToolset({ workspace: ws }), maxSteps: 1 })).rejects.toThrow(
      'tool "read_file" is both a request tool and an agent tool',
    );
  });

  it("the demo model looks at its workspace, writes its solution there, then answers the engine's own tools only", async () => {
    const ws = temp();
    writeFileSync(join(ws, 'main.zig'), 'pub fn main() void {}\n');
    const events: ToolEvent[] = [];
    const result = await runToolLoop({
      model: new DemoModel(),
      request: request({ meta: { purpose: 'workflow', persona: 'coder', personaName: 'Coder', workflow: { name: 'impl', state: 'implement', tools: ['review_work'], round: 0 } } }),
      toolset: createToolset({ workspace: ws }),
      maxSteps: 5,
      onTool: (e) => events.push(e),
    });
    expect(events.map((e) => `${e.phase} ${e.summary}`)).toEqual(['started list_files .', 'finished list_files .', 'started write_file solution.md', 'finished write_file solution.md']);
    expect(result.transcript[1]).toMatchObject({ role: 'tool', content: 'main.zig' });
    expect(readFileSync(join(ws, 'solution.md'), 'utf8')).toContain('By Coder, version 1 (demo model, offline).');
    expect(result.stop).toBe('own_tool');
    expect(result.response.toolCalls.map((c) => c.name)).toEqual(['review_work']);
    expect(result.response.text).toBe('Coder (implement, demo): wrote solution.md in my workspace — a first implementation.');
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import type { RawResponse } from '../../../src/engine/evaluation.js';
import { appendEach } from '../../../src/workflow/run/context-length.js';
import type { WorkflowMessage } from '../../../src/workflow/run/state.js';
import { createSandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, expr, handler, scopeOf, stmts, succeeded, template } from './fixtures.js';

// What SynthDev's handlers (and seed 000's and 001's code) find on `this`, in troupe's QuickJS sandbox.
const SCRIPT = `
export default {
  addGreeting() {
    const floor = this.workflow_contexts.get('floor');
    floor.addMessage({ role: 'user', content: this.input });
    this.common_data.count = floor.getMessages().length;
  },
  readDecision() {
    const calls = this.last_response?.choices?.[0]?.message?.tool_calls || [];
    const args = JSON.parse(calls.find((c) => c.function?.name === 'decide').function.arguments);
    this.common_data.go = args.go;
    this.common_data.text = this.last_response.choices[0].message.content;
    return this.pick(args.go);
  },
  pick(go) { return go ? 'next' : 'stop'; },
  arrow: (x) => x,
};
`;
const sandbox = createSandboxEvaluator({ scriptFor: () => SCRIPT });
afterAll(() => sandbox.close());

const raw: RawResponse = {
  content: null,
  tool_calls: [{ id: 'call_1', name: 'decide', arguments: '{"go":true}' }],
  finish_reason: 'tool_calls',
  model: 'm',
  usage: { prompt_tokens: 3, completion_tokens: 2 },
};
const scope = scopeOf({
  common_data: { request: 'Hello' },
  workflow_input: { name: 'request', text: 'Hello', value: 'Hello' },
  contexts: { floor: [{ role: 'assistant', content: 'Welcome' }], other: [] },
  context_limits: { floor: 1000, other: 1000 },
  agents: { clerk: { response: '', toolCalls: [{ name: 'decide', arguments: { go: true } }], raw } },
  roster: { clerk: { context: 'floor', role: 'user' }, helper: { context: 'other', role: 'assistant' } },
  last_agent_response: '',
  last_response: raw,
});

describe("SynthDev's handler scope in the sandbox", () => {
  it('export default { ... } methods are handlers, bound to this, calling each other through it', async () => {
    const r = succeeded(await sandbox.evaluate(codeEvaluation(handler('readDecision'), scope, 'decide')));
    expect(r.value).toBe('next');
    expect(r.common_data).toMatchObject({ go: true, text: null });
  });

  it('this.workflow_contexts is a Map of contexts: addMessage, getMessages; the message added comes back', async () => {
    const r = succeeded(await sandbox.evaluate(codeEvaluation(handler('addGreeting'), scope)));
    expect(r.common_data.count).toBe(2);
    expect(r.appended).toEqual({ floor: [{ role: 'user', content: 'Hello' }] });
  });

  it('this.input is the workflow input: its text, and seed 001 reads this.input.<name>', async () => {
    const r = succeeded(await sandbox.evaluate(codeEvaluation(expr("[String(this.input), this.input.request, this.input + '!', JSON.stringify({ i: this.input })]"), scope)));
    expect(r.value).toEqual(['Hello', 'Hello', 'Hello!', '{"i":"Hello"}']);
  });

  it("this.last_response is the raw completion (tool-call arguments as JSON text) and reads as the answer's text (seed 001)", async () => {
    const withText = { ...scope, last_response: { ...raw, content: 'It is complex.' }, last_agent_response: 'It is complex.' };
    const r = succeeded(
      await sandbox.evaluate(
        codeEvaluation(
          expr(
            "[this.last_response.choices[0].message.tool_calls[0].function.arguments, this.last_response.includes('complex'), this.last_response.split(' ').length, this.last_response.usage.total_tokens]",
          ),
          withText,
        ),
      ),
    );
    expect(r.value).toEqual(['{"go":true}', true, 3, 5]);
  });

  it('this.agents and this.contexts are Maps that also read by name; every agent has getContextRole()', async () => {
    const code =
      "[this.agents instanceof Map, this.agents.size, this.agents.get('helper').getContextRole(), this.agents.clerk.getContextRole(), this.getAgent('clerk').getLastRawResponse().choices[0].finish_reason, this.contexts.get('floor').messages.length, contexts.floor.getName(), this.agents.get('clerk').getContext().getName()]";
    const r = succeeded(await sandbox.evaluate(codeEvaluation(expr(code), scope)));
    expect(r.value).toEqual([true, 2, 'assistant', 'user', 'tool_calls', 1, 'floor', 'floor']);
  });

  it("addMessage trims as seed 000's WorkflowContext: past max_length, system first, the oldest others go while more than 10 remain", async () => {
    const messages = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${String(i).padStart(2, '0')}` }));
    const trimmed = scopeOf({ contexts: { c: [{ role: 'user', content: 'first' }, ...messages] }, context_limits: { c: 50 } });
    const r = succeeded(
      await sandbox.evaluate(
        codeEvaluation(stmts("this.workflow_contexts.get('c').addMessage({ role: 'system', content: 'rule' }); this.common_data.n = this.workflow_contexts.get('c').messages.length"), trimmed),
      ),
    );
    expect(r.common_data.n).toBe(11);
    // The engine appends what was added as addMessage does: the same list the code read.
    const kept = appendEach([{ role: 'user' as const, content: 'first' }, ...messages] as WorkflowMessage[], r.appended!.c!, 50);
    expect(kept[0]).toEqual({ role: 'system', content: 'rule' });
    expect(kept.slice(1).map((m) => m.content)).toEqual(messages.slice(2).map((m) => m.content));
  });

  it('{input} in a template is the workflow input; clearMessages empties a context', async () => {
    const r = succeeded(await sandbox.evaluate(codeEvaluation(template('Asked: {input} / {input.request}'), scope, 'input')));
    expect(r.value).toBe('Asked: Hello / Hello');
    const cleared = succeeded(await sandbox.evaluate(codeEvaluation(stmts("this.workflow_contexts.get('floor').clearMessages()"), scope)));
    expect(cleared.contexts).toEqual({ floor: [] });
  });
});

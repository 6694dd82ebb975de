import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation, Scope } from '../../../src/engine/evaluation.js';
import { createSandboxEvaluator, DEFAULT_LIMITS, SandboxPool } from '../../../src/workflow/sandbox/index.js';
import { hostTierCounts, runInTier } from '../../../src/workflow/sandbox/tier/run.js';
import { expr, handler, stmts } from './fixtures.js';

// Code that reads a conversation (a context's messages, SynthDev's workflow_contexts and its methods), run by the
// host tier and by the QuickJS sandbox on the same scope: the tier must decide it and give the sandbox's whole
// result. Code that would change the messages it read, and scopes made to trip the copy, leave it to the sandbox.

const RAW = {
  content: 'We have pasta and bread.',
  tool_calls: [{ id: 'call_1', name: 'interaction_decision', arguments: '{"continue_shopping":true,"continue_message":"And tomatoes?"}' }],
  finish_reason: 'tool_calls',
  model: 'm1',
  usage: null,
};
const CONVERSATION = [
  { role: 'system', content: 'You run a grocery store.' },
  { role: 'user', content: 'I need pasta, tomatoes and bread for six.' },
  { role: 'assistant', content: 'We have pasta and bread.' },
  { role: 'user', content: 'And tomatoes?' },
];
const SCOPE: Scope = {
  common_data: { n: 1 },
  input: null,
  contexts: { store: CONVERSATION, empty: [] },
  context_limits: { store: 1000, empty: 1000 },
  agents: {},
  roster: { worker: { context: 'store', role: 'assistant' } },
  last_response: RAW,
  last_agent_response: RAW.content,
  last_tool_calls: [],
};

const EXPRESSIONS = [
  "this.workflow_contexts.get('store').messages",
  "this.workflow_contexts.get('store').messages.length",
  "this.workflow_contexts.get('store').messages[3].content",
  "this.workflow_contexts.get('store').messages[this.workflow_contexts.get('store').messages.length - 1]?.content",
  "this.workflow_contexts.get('empty').messages[-1]?.content",
  "this.workflow_contexts.get('store').messages.slice(-2)",
  "this.workflow_contexts.get('store').messages.filter((m) => m.role === 'user').map((m) => m.content)",
  "this.workflow_contexts.get('store').messages.map((m) => m.content.length).reduce((a, b) => a + b, 0)",
  "this.workflow_contexts.get('store').messages.some((m) => m.content.includes('tomatoes'))",
  "this.workflow_contexts.get('store').getMessages()",
  "this.workflow_contexts.get('store').getMessages() === this.workflow_contexts.get('store').getMessages()",
  "this.workflow_contexts.get('store').messages === this.workflow_contexts.get('store').messages",
  "this.workflow_contexts.get('store').getLastMessage()",
  "this.workflow_contexts.get('empty').getLastMessage()",
  "this.workflow_contexts.get('store').getMessagesByRole('user').length",
  "this.workflow_contexts.get('store').hasMessages() && !this.workflow_contexts.get('empty').hasMessages()",
  'this.contexts.store.messages[0].role',
  "getContext('store').messages.length",
  "context.getContext('store').getMessages().length",
  "JSON.stringify(getContext('store').messages.slice(0, 2))",
  "Object.keys(getContext('store').messages[0])",
];

const STATEMENTS = [
  // Read, then add: the list read grows by what is added (as the guest appends it).
  "const c = getContext('store'); const before = c.messages; c.addMessage({ role: 'assistant', content: 'Tomatoes too.' }); return [before.length, c.messages.length, before === c.messages, c.getLastMessage().content];",
  // Add, then read: the messages read end with what was added.
  "const c = getContext('empty'); c.addMessage({ role: 'user', content: 'hello' }); c.addMessage({ role: 'assistant', content: 'hi' }); return c.messages.map((m) => m.role + ':' + m.content);",
  // A copy of the list (getMessages, slice, concat) is code's own to change.
  "const mine = getContext('store').getMessages(); mine.push({ role: 'user', content: 'x' }); mine.reverse(); return [mine.length, getContext('store').messages.length, mine[0].content];",
  "const all = getContext('store').messages.concat([]); all.pop(); all.shift(); return all.length;",
  // Messages kept in common_data are copies in the answer.
  "this.common_data.history = getContext('store').messages.slice(1, 3); this.common_data.last = getContext('store').getLastMessage();",
  "let chars = 0; for (const m of this.workflow_contexts.get('store').messages) chars += m.content.length; return chars;",
  "const ctx = this.workflow_contexts.get('store'); const reply = this.last_response?.choices?.[0]?.message?.content; if (ctx && reply && ctx.messages[ctx.messages.length - 1]?.content !== reply) ctx.addMessage({ role: 'assistant', content: reply }); return ctx.messages.length;",
];

// SynthDev's grocery_store_test post handlers as bench/synthdev.bench.ts's reading variant has them.
const SCRIPT = `
export default {
  addWorkerResponse() {
    const context = this.workflow_contexts.get('store');
    const responseContent = this.last_response?.choices?.[0]?.message?.content;
    if (context && responseContent && context.messages[context.messages.length - 1]?.content !== responseContent) {
      context.addMessage({ role: 'assistant', content: responseContent });
    }
  },
  processCustomerDecision() {
    const context = this.workflow_contexts.get('store');
    const toolCalls = this.last_response?.choices?.[0]?.message?.tool_calls || [];
    const decisionCall = toolCalls.find(call => call.function?.name === 'interaction_decision');
    if (decisionCall && context && context.messages.length > 0) {
      try {
        const arguments_ = JSON.parse(decisionCall.function.arguments);
        if (arguments_.continue_shopping === true && arguments_.continue_message) {
          context.addMessage({ role: 'user', content: arguments_.continue_message });
        }
      } catch (error) {
        console.error('Error parsing interaction_decision arguments:', error);
      }
    }
  },
  lastSaid() {
    const context = this.workflow_contexts.get('store');
    return context.getLastMessage().content;
  },
};
`;

const ev = (over: Partial<Evaluation>, scope: Scope = SCOPE): Evaluation => ({ workflow: 'wf', state: 's', purpose: 'enter', scope, ...over });

const CASES: [string, Evaluation][] = [
  ...EXPRESSIONS.map((s): [string, Evaluation] => [`expression ${s}`, ev({ purpose: 'input', code: expr(s) })]),
  ...STATEMENTS.map((s): [string, Evaluation] => [`statements ${s}`, ev({ code: stmts(s) })]),
  ['the worker reply handler, the reply said already', ev({ purpose: 'after', code: handler('addWorkerResponse') })],
  ['the worker reply handler, a new reply', ev({ purpose: 'after', code: handler('addWorkerResponse') }, { ...SCOPE, last_response: { ...RAW, content: 'Tomatoes are in aisle 3.' } })],
  ['the customer decision handler', ev({ purpose: 'after', code: handler('processCustomerDecision') })],
  ['the customer decision handler, an empty conversation', ev({ purpose: 'after', code: handler('processCustomerDecision') }, { ...SCOPE, contexts: { store: [], empty: [] } })],
  [
    'a chain: a part adds, the part after it reads what was added',
    ev({
      purpose: 'after',
      code: stmts("getContext('store').addMessage({ role: 'assistant', content: 'Added first.' });"),
      next: { purpose: 'decide', code: handler('lastSaid') },
    }),
  ],
  [
    'a chain: both parts read and add',
    ev(
      {
        purpose: 'after',
        code: handler('addWorkerResponse'),
        next: { purpose: 'after', code: stmts("const c = getContext('store'); c.addMessage({ role: 'user', content: 'n=' + c.messages.length }); return c.messages.length;") },
      },
      { ...SCOPE, last_response: { ...RAW, content: 'New reply.' } },
    ),
  ],
  [
    'one message object twice in a list, and in two contexts: copies of their own, as the guest has them',
    ev(
      {
        purpose: 'input',
        code: expr(
          "[getContext('store').messages[0] === getContext('store').messages[1], getContext('store').messages[0] === getContext('empty').messages[0], getContext('store').messages[0] === getContext('store').messages[0]]",
        ),
      },
      { ...SCOPE, contexts: { store: [CONVERSATION[1]!, CONVERSATION[1]!], empty: [CONVERSATION[1]!] } },
    ),
  ],
  [
    'messages with a __proto__ key of their own (JSON data)',
    ev(
      { purpose: 'input', code: expr("getContext('store').messages.map((m) => Object.keys(m).length + m.content)") },
      {
        ...SCOPE,
        contexts: { store: JSON.parse('[{"role": "user", "content": "a", "__proto__": {"polluted": true}}]') },
      },
    ),
  ],
];

// Code that changes the messages it read (the guest would send the whole list: the sandbox answers that), or reads
// past max_length (the guest trims as it reads).
const CHANGES = [
  "getContext('store').messages.push({ role: 'user', content: 'x' });",
  "getContext('store').messages.pop();",
  "getContext('store').messages.shift();",
  "getContext('store').messages.reverse();",
  "getContext('store').messages[0] = { role: 'user', content: 'x' };",
  "getContext('store').messages[0].content = 'changed';",
  "getContext('store').messages[0].content += '!';",
  "getContext('store').getLastMessage().role = 'system';",
  "getContext('store').getMessages()[0].content = 'changed';",
  "getContext('store').messages = [];",
  "getContext('store').clearMessages();",
  "const m = getContext('store').messages; this.common_data.m = m; this.common_data.m.push(1);",
  "getContext('store').addMessage({ role: 'user', content: 'x'.repeat(900) }); return getContext('store').messages.length;",
  "const c = getContext('store'); c.messages.length; c.addMessage({ role: 'user', content: 'x'.repeat(900) });",
];

const pool = new SandboxPool({ size: 1 });
const sandbox = createSandboxEvaluator({ pool, scriptFor: () => SCRIPT });
afterAll(async () => {
  await sandbox.close();
  await pool.close();
});

describe('code that reads a conversation in the host tier', () => {
  it.each(CASES)('%s: the sandbox result', async (_name, evaluation) => {
    const tier = runInTier(structuredClone(evaluation), SCRIPT, DEFAULT_LIMITS);
    const guest = await sandbox.evaluate(structuredClone(evaluation));
    expect(guest.ok).toBe(true);
    expect(tier).toEqual(guest);
    expect(JSON.stringify(tier)).toBe(JSON.stringify(guest));
  });

  it.each(CHANGES)('`%s`: the tier gives up, with no effect; the sandbox answers', async (source) => {
    const evaluation = ev({ code: stmts(source) });
    const before = structuredClone(evaluation);
    expect(runInTier(evaluation, null, DEFAULT_LIMITS)).toBeNull();
    expect(hostTierCounts.lastBail).not.toBe('');
    expect(evaluation).toEqual(before);
    expect(await sandbox.evaluate(evaluation)).toHaveProperty('ok');
  });
});

describe('scopes made to trip the copy of the messages', () => {
  it('a message whose content is a getter: the tier gives up without calling it', () => {
    let called = 0;
    const message = { role: 'user' } as { role: string; content: string };
    Object.defineProperty(message, 'content', { enumerable: true, get: () => ((called += 1), 'from a getter') });
    const scope = { ...SCOPE, contexts: { store: [message] } };
    expect(runInTier(ev({ purpose: 'input', code: expr("getContext('store').messages[0].content") }, scope), null, DEFAULT_LIMITS)).toBeNull();
    expect(called).toBe(0);
  });

  it('a message that is not plain data (a class instance, a string), or messages that are not a list: the tier gives up', () => {
    class Message {
      role = 'user';
      content = 'x';
    }
    for (const odd of [new Message(), 'text', null, { role: 'user', content: 7 }]) {
      const scope = { ...SCOPE, contexts: { store: [odd] } } as unknown as Scope;
      expect(runInTier(ev({ purpose: 'input', code: expr("getContext('store').messages.length") }, scope), null, DEFAULT_LIMITS)).toBeNull();
    }
    for (const list of ['text', { length: 2 }, 7]) {
      const scope = { ...SCOPE, contexts: { store: list } } as unknown as Scope;
      expect(runInTier(ev({ purpose: 'input', code: expr("getContext('store').messages.length") }, scope), null, DEFAULT_LIMITS)).toBeNull();
    }
  });

  it("a context named __proto__ (which the sandbox's scope loses on the way): the tier gives up", () => {
    const scope = { ...SCOPE, contexts: JSON.parse('{"__proto__": [{"role": "user", "content": "proto"}], "store": []}') };
    expect(runInTier(ev({ code: stmts("this.workflow_contexts.get('__proto__').addMessage({ role: 'user', content: 'x' });") }, scope), null, DEFAULT_LIMITS)).toBeNull();
  });

  it('a huge conversation: reading it counts against the step budget, and code walking it runs out of steps', () => {
    const huge = Array.from({ length: 150_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` }));
    const scope = { ...SCOPE, contexts: { store: huge }, context_limits: {} };
    const read = runInTier(ev({ purpose: 'input', code: expr("getContext('store').messages.length") }, scope), null, DEFAULT_LIMITS);
    expect(read).toMatchObject({ ok: true, value: 150_000 });
    expect(runInTier(ev({ code: stmts("let n = 0; for (let i = 0; i < 30; i++) n += getContext('store').getMessages().length; return n;") }, scope), null, DEFAULT_LIMITS)).toBeNull();
    expect(hostTierCounts.lastBail).toBe('step budget');
    expect(runInTier(ev({ code: stmts("let n = 0; for (const m of getContext('store').messages) n += m.content.length; return n;") }, scope), null, DEFAULT_LIMITS)).toBeNull();
    expect(hostTierCounts.lastBail).toBe('step budget');
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation, Scope } from '../../../src/engine/evaluation.js';
import { createSandboxEvaluator, DEFAULT_LIMITS, SandboxPool } from '../../../src/workflow/sandbox/index.js';
import { runInTier } from '../../../src/workflow/sandbox/tier/run.js';
import { expr, handler, stmts, template } from './fixtures.js';

// Each construct the host tier interprets, run by the tier and by the QuickJS sandbox on the same scope: the tier
// must decide it (it is in the subset) and give the sandbox's whole result.

const RAW = {
  content: 'Here is the code.',
  tool_calls: [{ id: 'call_1', name: 'review_work', arguments: '{"improvement_needed":true,"notes":"tighten it"}' }],
  finish_reason: 'tool_calls',
  model: 'm1',
  usage: { prompt_tokens: 10, completion_tokens: 5 },
};
const SCOPE: Scope = {
  common_data: {
    n: 3,
    s: 'Hello World',
    list: [1, 2, 3],
    items: [
      { name: 'a', ok: true },
      { name: 'b', ok: false },
    ],
    nested: { deep: { x: 'y' } },
    flag: true,
    nothing: null,
    f: 1.5,
    unicode: 'Ünïcödé ✓',
  },
  input: 'the state input',
  workflow_input: { name: 'task', text: 'build a parser', value: 'build a parser' },
  contexts: { c: [{ role: 'user', content: 'hi' }], other: [] },
  context_limits: { c: 1000 },
  agents: {
    coder: { response: 'code!', toolCalls: [{ name: 'review_work', arguments: { improvement_needed: true, notes: 'x' } }], raw: RAW, context: 'c', role: 'assistant' },
  },
  roster: { coder: { context: 'c', role: 'assistant' }, reviewer: { context: 'c', role: 'user' } },
  last_response: RAW,
  last_agent_response: 'done',
  last_tool_calls: [{ name: 'review_work', arguments: '{"improvement_needed": false, "score": 7}' }],
  sub_workflow_result: { summary: 'child ok' },
};

const EXPRESSIONS = [
  'common_data.n + 1',
  'common_data.n * 2 - 1 / 4 % 3',
  "common_data.s + ' ' + common_data.n + null + true",
  '`${common_data.s}: ${common_data.n} ${common_data.f}`',
  'common_data.f + true',
  'common_data.n > 2 && common_data.s.length < 20',
  "common_data.nothing ?? 'fallback'",
  'common_data.missing?.x?.y',
  'common_data.nothing?.x',
  '!common_data.flag || -common_data.n',
  'typeof common_data.list + typeof getAgent + typeof common_data.nothing + typeof common_data.gone',
  'common_data.n == 3 && common_data.nothing == undefined && common_data.s != "x"',
  "common_data.list.length ? 'some' : 'none'",
  'common_data.list.map((x) => x * 2)',
  'common_data.list.filter((x) => x > 1).length',
  "common_data.items.find((i) => i.name === 'b')",
  'common_data.items.findIndex((i) => i.ok === false)',
  'common_data.items.some((i) => i.ok) && !common_data.items.every((i) => i.ok)',
  'common_data.list.includes(2) && common_data.list.indexOf(3)',
  "common_data.list.join('-') + common_data.list.join()",
  'common_data.list.slice(1)',
  'common_data.list.reduce((a, b) => a + b, 0)',
  'common_data.list.concat([4], 5)',
  'common_data.s.toLowerCase()',
  "common_data.s.toUpperCase().split(' ')",
  "'  pad \\n '.trim() + '|' + '  x '.trimStart() + '|' + ' y  '.trimEnd()",
  "common_data.s.startsWith('Hell') && !common_data.s.endsWith('x')",
  'common_data.s.slice(-5) + common_data.s.substring(1, 4)',
  "common_data.s.indexOf('o') + common_data.s.lastIndexOf('o')",
  "common_data.s.includes('World')",
  "'ab'.repeat(3) + '7'.padStart(3, '0') + '7'.padEnd(3, '.')",
  'common_data.s.charAt(1) + common_data.s[0] + common_data.s[99]',
  'JSON.stringify(common_data.items)',
  'JSON.stringify(common_data.nested, null, 2)',
  'JSON.parse(\'{"a":[1,2]}\').a[1]',
  'Math.max(common_data.n, 10) + Math.min(1, 2) + Math.floor(2.7) + Math.ceil(2.1) + Math.abs(-3) + Math.trunc(-2.5) + Math.sign(-4)',
  'Math.round(common_data.f)',
  'Object.keys(common_data.nested).concat(Object.values(common_data.nested.deep))',
  'Object.entries(common_data.nested.deep)',
  'Array.isArray(common_data.list) && !Array.isArray(common_data.nested)',
  'function.review_work.arguments.improvement_needed === false',
  'function.review_work.arguments.score',
  'function.missing_tool.arguments.x',
  "this.getToolCalls('coder').length > 0",
  "this.getAgent('coder').getLastResponse()",
  "this.getAgent('nobody').getLastResponse()",
  "this.getAgent('coder').toolCalls[0].arguments.notes",
  "this.getAgent('reviewer').getContextRole()",
  "this.getAgent('coder').hasToolCalls() && this.getAgent('coder').getRole()",
  "this.getAgent('coder').getLastRawResponse().choices[0].message.tool_calls[0].function.name",
  "this.agents.get('coder').response",
  'this.agents.coder.contextRole',
  'this.last_response.choices[0].message.content',
  'this.last_response?.choices?.[0]?.message?.tool_calls?.[0]?.function?.arguments',
  'this.last_response.length + this.last_response.usage.total_tokens',
  'last_response.model',
  'this.input.task',
  "this.input + '!'",
  'input',
  'this.last_tool_calls[0].function.name',
  'last_tool_calls.length + last_parsing_tool_calls.length',
  'this.sub_workflow_result.summary',
  'sub_workflow_result',
  'this.variables.n',
  "this.workflow_contexts.get('c').name",
  "this.workflow_contexts.has('c') && !this.workflow_contexts.has('x')",
  'this.workflow_contexts.size',
  "this.workflow_contexts.get('nope')",
  "getContext('c').maxLength",
  "context.getContext('c').getName()",
  "this.getAgent('coder').getContext().name",
  'this.common_data',
  'common_data.unicode.length',
  "[1, 'a', null, true, { x: 1 }]",
  "({ a: 1, b: [2], 'c-d': 3, [common_data.s]: 4, 5: 'five' })",
  'common_data.list.map((x, i) => x + i)',
  '(() => 5)()',
  '(function () { return this.common_data.n; }).call(this)',
  "common_data.items.map((i) => i.name).join(', ')",
  '1 / 0',
  '0 / 0',
  '-0',
  '0.1 + 0.2',
  '1e21 + 1',
  "'x' + 1e-7 + 123456789012345680000",
  'common_data.list === common_data.list && this.common_data === common_data && this.last_tool_calls === last_parsing_tool_calls',
  'this.workflow_contexts === this.contexts && getAgent === this.getAgent',
  'undefined',
  '() => { this.common_data.from_function = true; }',
];

const STATEMENTS = [
  // Blocks with and without bindings of their own: a block that declares nothing shares the scope around it.
  'let n = 1; { n = 2; { const n = 3; this.common_data.inner = n; } { n += 10; } } this.common_data.n = n;',
  'const fs = []; let k = 0; { fs.push(() => k); } { let k = 7; fs.push(() => k); } k = 1; this.common_data.got = fs.map((f) => f());',
  "let x = 'outer'; if (true) { x = 'set in a block'; } else { const x = 'never'; } { const g = () => x; x = x + '!'; this.common_data.g = g(); } this.common_data.x = x;",
  "this.common_data.x = 1; this.common_data.n += 2; this.common_data.n -= 1; console.log('n', this.common_data.n, { a: 1 }, [1], 'text', null, undefined, 2.5);",
  'const a = []; for (let i = 0; i < 5; i++) { if (i === 3) continue; a.push(i); } this.common_data.a = a;',
  'let s = 0; for (const x of common_data.list) { if (x > 2) break; s += x; } return s;',
  'let i = 0; while (i < 10) { i++; } let j = 5; j--; ++j; return [i, j];',
  "try { JSON.parse('nope'); return 'parsed'; } catch (e) { return 'caught'; }",
  'try { return JSON.parse(\'{"k": 2}\').k; } catch { return -1; }',
  "console.warn('w'); console.error('e', null, 1.5); console.info('i'); console.debug('d');",
  "for (let i = 0; i < 150; i++) console.log('line ' + i);",
  "console.log('x'.repeat(2000));",
  "this.workflow_contexts.get('c').addMessage({ role: 'assistant', content: 'added' }); this.workflow_contexts.get('other').addMessage({ role: 'user', content: this.last_response }); this.workflow_contexts.get('c').addMessage({ role: 'system', content: 42 });",
  "getContext('other').addMessage({ role: 'user', content: { a: [1] } });",
  'this.common_data = { replaced: true };',
  "this.variables.v = 'via variables';",
  'common_data.direct = 1;',
  'this.common_data.when = this.common_data.items.filter((i) => !i.ok).map((i) => i.name);',
  'function helper(x) { return x * 2; } return helper(common_data.n);',
  'const o = { m() { return this.v; }, v: 7, f: function () { return this.v + 1; } }; return o.m() + o.f();',
  'this.extra = 1; this.input = 2; return [this.extra, this.input];',
  "if (common_data.n > 5) { return 'big'; } else if (common_data.n > 2) { return 'mid'; } return 'small';",
  'const list = common_data.list; list[3] = 4; list.pop(); list.shift(); list.reverse(); this.common_data.copy = list;',
  'let total = 0; common_data.list.forEach((x) => { total += x; }); return total;',
  'const parts = []; for (const e of Object.entries(common_data.nested)) parts.push(e[0]); return parts;',
  'const fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2)); return fib(10);',
  // Two MiB of common_data: past the bound on its JSON's length that spares the tier serialising it, within the limit.
  "for (let i = 0; i < 2; i++) this.common_data['k' + i] = 'é\\n'.repeat(524288);",
];

const SCRIPT = `
const LIMIT = 3;
function count(self) { return self.common_data.list.length; }
export function record() { this.common_data.recorded = count(this) + LIMIT; this.helper2(); }
export function helper2() { this.common_data.h = 'helper on this'; }
export default {
  choose() { return this.common_data.n > LIMIT ? 'big' : 'small'; },
  talk() {
    const ctx = this.workflow_contexts.get('c');
    const answer = this.last_response?.choices?.[0]?.message?.content;
    if (ctx && answer) ctx.addMessage({ role: 'assistant', content: answer });
  },
  parse() {
    const calls = this.last_response?.choices?.[0]?.message?.tool_calls || [];
    const call = calls.find((c) => c.function?.name === 'review_work');
    try {
      const args = JSON.parse(call.function.arguments);
      this.common_data.needs = args.improvement_needed === true;
    } catch (error) {
      this.common_data.needs = 'unparsed';
    }
  },
};
`;

const ev = (over: Partial<Evaluation>): Evaluation => ({ workflow: 'wf', state: 's', purpose: 'enter', scope: SCOPE, ...over });

const CASES: [string, Evaluation][] = [
  ...EXPRESSIONS.map((s): [string, Evaluation] => [`expression ${s}`, ev({ purpose: 'input', code: expr(s) })]),
  ...STATEMENTS.map((s): [string, Evaluation] => [`statements ${s}`, ev({ code: stmts(s) })]),
  [
    'a template',
    ev({
      purpose: 'input',
      code: template('Task {input} / {input.task} / {n} / {common_data.nested} / {missing} / {sub_workflow_result.summary} / {last_agent_response} / {list.0} / {last_tool_calls.0.name}'),
    }),
  ],
  ['fields', ev({ purpose: 'sub_input', fields: { a: expr('common_data.n * 2'), b: template('{s}!'), c: expr('common_data.gone'), d: expr('common_data.items') } })],
  [
    'transitions with before-code',
    ev({
      purpose: 'transitions',
      transitions: [
        { condition: expr('common_data.n > 5'), before: stmts('this.common_data.path = "no"'), target: 'a' },
        { condition: expr('function.review_work.arguments.improvement_needed === false'), before: stmts('() => { this.common_data.path = "yes"; }'), target: 'b' },
        { condition: null, before: null, target: 'c' },
      ],
    }),
  ],
  ['a handler that records', ev({ code: handler('record') })],
  ['a handler that chooses', ev({ purpose: 'decide', code: handler('choose') })],
  ['a handler that adds a message', ev({ purpose: 'after', code: handler('talk') })],
  ['a handler that parses tool-call arguments', ev({ purpose: 'after', code: handler('parse') })],
  [
    'a chain: after-code, a decision, the chosen state entered afresh',
    ev({
      purpose: 'after',
      code: stmts("this.common_data.n = this.common_data.n + 10; getContext('c').addMessage({ role: 'user', content: 'first' });"),
      next: {
        purpose: 'decide',
        code: handler('choose'),
        targets: {
          big: {
            purpose: 'enter',
            code: stmts("this.common_data.entered = 'big'; getContext('c').addMessage({ role: 'user', content: 'second' }); console.log(input);"),
            next: { purpose: 'input', code: template('Go {n} {input}') },
          },
          small: { purpose: 'enter', code: stmts("this.common_data.entered = 'small'") },
        },
      },
    }),
  ],
];

const pool = new SandboxPool({ size: 1 });
const sandbox = createSandboxEvaluator({ pool, scriptFor: () => SCRIPT });
afterAll(async () => {
  await sandbox.close();
  await pool.close();
});

describe('each construct of the host tier gives the sandbox result', () => {
  it.each(CASES)('%s', async (_name, evaluation) => {
    const tier = runInTier(structuredClone(evaluation), SCRIPT, DEFAULT_LIMITS);
    const guest = await sandbox.evaluate(structuredClone(evaluation));
    expect(guest.ok).toBe(true);
    expect(tier).toEqual(guest);
    // The same JSON too (key order included: journals hold it).
    expect(JSON.stringify(tier)).toBe(JSON.stringify(guest));
  });
});

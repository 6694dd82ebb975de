import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation, Scope } from '../../../src/engine/evaluation.js';
import { createSandboxEvaluator, DEFAULT_LIMITS, SandboxPool } from '../../../src/workflow/sandbox/index.js';
import { hostTierCounts, runInTier } from '../../../src/workflow/sandbox/tier/run.js';
import { expr, handler, stmts } from './fixtures.js';

// Code that tries to reach past the tier's copies and fixed table (prototypes, constructors, host built-ins given
// guest callbacks or receivers, getters and toString/valueOf, Symbol, code built at run time), or to outlast it
// (huge strings, deep nesting, endless loops and recursion): the tier gives up on all of it, with no effect on the
// evaluation it was given, and the sandbox runs it as it always has.

const scope = (): Scope => ({
  common_data: { n: 1, list: [1, 2, 3], o: { k: 'v' }, s: 'text' },
  input: null,
  contexts: { c: [] },
  context_limits: { c: 50 },
  agents: {},
  last_agent_response: 'answer',
  last_tool_calls: [],
});

// Each kept as it is written: the code, and whether the sandbox (with its own step limit) may take long on it.
const HOSTILE: [string, string, boolean?][] = [
  ['expression', 'this.constructor.constructor("return process")()'],
  ['expression', 'this["constructor"]["constructor"]("return 1")()'],
  ['expression', '({}).__proto__'],
  ['expression', "({})['__pro' + 'to__']"],
  ['statements', "this.common_data['__pro' + 'to__'] = { polluted: true };"],
  ['statements', 'this.common_data.__proto__.polluted = true;'],
  ['expression', '({}).constructor'],
  ['expression', 'common_data.toString()'],
  ['expression', 'common_data.hasOwnProperty("n")'],
  ['expression', '[].find.call(this.common_data, (x) => x)'],
  ['expression', '[].find.call(common_data.list, function () { return this; })'],
  ['expression', 'common_data.list.find(function () { return this; })'],
  ['expression', 'common_data.list.map(Math.max)'],
  ['expression', 'common_data.list.find((x) => x, this)'],
  ['expression', 'JSON.stringify({ f: () => 1 })'],
  ['expression', 'JSON.stringify(common_data, (k, v) => v)'],
  ['expression', "JSON.parse('{}', (k, v) => v)"],
  ['expression', '({ get x() { return 1; } }).x'],
  ['expression', "'' + { toString() { return 'x'; } }"],
  ['expression', '`${{ toString() { return 1; } }}`'],
  ['expression', '1 + { valueOf() { return 2; } }'],
  ['expression', 'common_data.list.join({ toString() { return "-"; } })'],
  ['expression', "common_data.s.includes({ toString() { return 'x'; } })"],
  ['expression', 'Symbol.iterator'],
  ['expression', 'common_data[Symbol.toPrimitive]'],
  ['expression', 'globalThis.process'],
  ['expression', 'Function("return this")()'],
  ['expression', 'eval("1")'],
  ['expression', 'arguments.length'],
  ['expression', 'Object.keys(this)'],
  ['expression', 'Object.getPrototypeOf(common_data)'],
  ['expression', 'Reflect.ownKeys(common_data)'],
  ['expression', 'new Date().getTime()'],
  ['expression', 'Math.random()'],
  ['expression', 'Math.pow(2, 0.5)'],
  ['expression', '2 ** 0.5'],
  ['expression', '/a/.test(common_data.s)'],
  ['expression', '1n + 2n'],
  ['expression', 'common_data.s.localeCompare("a")'],
  ['expression', 'common_data.list.sort()'],
  ['expression', "'İ'.toLowerCase()"],
  ['expression', 'common_data.n < "2"'],
  ['expression', 'common_data.o + 1'],
  ['expression', 'common_data.missing.deeper'],
  ['expression', 'this.evaluateExpression("1 + 1")'],
  ['statements', "this.workflow_contexts.get('c').messages.push({ role: 'user', content: 'x' });"],
  ['statements', "getContext('c').addMessage({ role: 'user', content: 'x' }); getContext('c').getMessages().concat([])[0].content = 'y';"],
  ['expression', "this.workflow_contexts.get('c').export()"],
  ['expression', "getContext('missing')"],
  ['expression', '"x".repeat(2 ** 30)'],
  ['expression', '"x".padStart(1e9)'],
  ['expression', "JSON.parse('['.repeat(5000) + ']'.repeat(5000))"],
  ['expression', `${'('.repeat(3000)}1${')'.repeat(3000)}`],
  ['expression', `${'['.repeat(3000)}${']'.repeat(3000)}`],
  ['statements', 'let s = "x"; for (;;) s += s;', true],
  ['statements', 'while (true) {}', true],
  ['statements', 'for (;;) { this.common_data.n += 1; }', true],
  ['statements', 'const a = []; for (let i = 0; i < 1e7; i++) a.push(i); return a.length;', true],
  ['statements', 'function f() { return f(); } return f();'],
  ['statements', 'const g = (n) => g(n + 1); return g(0);'],
  ['statements', 'this.common_data.n = 2; while (true) {}', true],
  ['statements', 'const a = []; a.length = 1e9;'],
  ['statements', 'const a = []; a[1e6] = 1;'],
  ['statements', 'throw new Error("no")'],
  ['statements', 'try { null.x; } catch (e) { return e.message; }'],
  ['statements', 'try { JSON.parse("nope"); } catch (e) { return String(e); }'],
  ['statements', "'use strict'; undeclared = 1;"],
  ['statements', 'undeclared = 1;'],
  ['statements', 'var x = 1; return x;'],
  ['statements', 'label: for (;;) break label;'],
  ['statements', 'if (true) function f() {} return typeof f;'],
  ['statements', 'const f = async () => 1; return f();'],
  ['statements', 'const { n } = common_data; return n;'],
  ['statements', "getContext('c').addMessage({ role: 'user', content: 'x'.repeat(60) });"],
  ['statements', "getContext('c').addMessage({ role: 'robot', content: 'x' });"],
  ['statements', 'this.contexts = null;'],
  ['statements', 'this.common_data = [1, 2];'],
  ['statements', 'this.common_data.f = () => 1;'],
  ['statements', 'const o = {}; o.self = o; this.common_data.o = o;'],
  ['statements', 'let o = {}; for (let i = 0; i < 150; i++) o = { o }; this.common_data.deep = o;'],
  ['statements', "for (let i = 0; i < 9; i++) this.common_data['k' + i] = 'x'.repeat(1048576);"],
  ['expression', 'this.common_data.n <!-- this is a comment in acorn, an operator in QuickJS\n'],
];

const pool = new SandboxPool({ size: 1 });
const sandbox = createSandboxEvaluator({ pool, scriptFor: () => 'export function h() { return this.constructor; }' });
afterAll(async () => {
  await sandbox.close();
  await pool.close();
});

describe('hostile code in the host tier', () => {
  it.each(HOSTILE)(
    '%s `%s`: the tier gives up, with no effect; the sandbox answers',
    async (kind, source, slow) => {
      const evaluation: Evaluation = { workflow: 'wf', state: 's', purpose: 'enter', code: kind === 'expression' ? expr(source) : stmts(source), scope: scope() };
      const before = structuredClone(evaluation);
      expect(runInTier(evaluation, null, DEFAULT_LIMITS)).toBeNull();
      expect(hostTierCounts.lastBail).not.toBe('');
      expect(evaluation).toEqual(before);
      // The endless ones run to the sandbox's step limit (a second or so each): the sandbox's own tests cover them.
      if (!slow) expect(await sandbox.evaluate(evaluation)).toHaveProperty('ok');
      // A busy machine (other processes beside the suite) slows the sandbox's answer, never the outcome.
    },
    60_000,
  );

  it('a handler reaching for the constructor of this gives up too', () => {
    const evaluation: Evaluation = { workflow: 'wf', state: 's', purpose: 'enter', code: handler('h'), scope: scope() };
    expect(runInTier(evaluation, 'export function h() { return this.constructor; }', DEFAULT_LIMITS)).toBeNull();
  });
});

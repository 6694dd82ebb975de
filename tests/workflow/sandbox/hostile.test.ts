import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation } from '../../../src/engine/evaluation.js';
import { createSandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, errorOf, expr, handler, scopeOf, stmts, transitionsEvaluation } from './fixtures.js';

// Small limits keep the corpus fast; the messages name them. The step limit is the guest's own run time, so
// busy processes beside the test change nothing; the backstop (wall-clock time) is only for the slow built-in.
const sandbox = createSandboxEvaluator({
  maxSteps: 5_000_000,
  backstopMs: 4_000,
  memoryBytes: 8 * 1024 * 1024,
  maxResultBytes: 1024 * 1024,
  scriptFor: () => 'export async function later() { return 1; }\nexport function spin() { while (true) {} }',
});
afterAll(() => sandbox.close());

/** After every hostile evaluation the sandbox still answers a plain one. */
async function stillWorks(): Promise<void> {
  const result = await sandbox.evaluate(
    transitionsEvaluation([{ condition: expr('common_data.n + 1 === 2'), before: stmts('this.common_data.ok = typeof process === "undefined"') }], scopeOf({ common_data: { n: 1 } })),
  );
  expect(result).toEqual({ ok: true, value: 0, common_data: { n: 1, ok: true } });
}

// Hostile workflow code, kept as data: each must fail with one line that says what went wrong.
const corpus: { name: string; evaluation: Evaluation; error: RegExp }[] = [
  { name: 'an endless while loop', evaluation: codeEvaluation(expr('while(true){}')), error: /^expression `while\(true\)\{\}`: ran more than 5,000,000 steps — an endless loop\?$/ },
  { name: 'an endless for loop in statements', evaluation: codeEvaluation(stmts('for(;;){}')), error: /^script `for\(;;\){}`: ran more than 5,000,000 steps — an endless loop\?$/ },
  { name: 'an endless loop that catches everything', evaluation: codeEvaluation(stmts('for(;;){ try { while(true){} } catch (e) {} }')), error: /ran more than 5,000,000 steps — an endless loop\?$/ },
  { name: 'an endless loop in a handler', evaluation: codeEvaluation(handler('spin'), scopeOf(), 'decide'), error: /^handler spin: ran more than 5,000,000 steps/ },
  { name: 'regex backtracking', evaluation: codeEvaluation(expr("/(a+)+$/.test('a'.repeat(40) + 'b')")), error: /ran more than 5,000,000 steps — an endless loop\?$/ },
  {
    name: 'a slow built-in the interrupt never sees (the worker is terminated)',
    evaluation: codeEvaluation(expr("'a'.repeat(2e6).indexOf('a'.repeat(1e5) + 'b')")),
    error: /^the evaluation: still running after 4 s of wall-clock time, so the sandbox was stopped — a slow built-in \(a huge string search, sort or join\) that the step limit cannot interrupt/,
  },
  { name: 'a huge string', evaluation: codeEvaluation(expr("'x'.repeat(1e8).length")), error: /ran out of memory \(8 MiB\)/ },
  { name: 'a 1 GB array', evaluation: codeEvaluation(expr('new Array(1e9).fill(0).length')), error: /ran out of memory \(8 MiB\)/ },
  { name: 'string doubling', evaluation: codeEvaluation(stmts("let s = 'x'; while (true) s += s;")), error: /^script `let s = 'x'; while \(true\) s \+= s;`: ran out of memory \(8 MiB\)/ },
  { name: 'infinite recursion', evaluation: codeEvaluation(stmts('function f() { return f() + 1; } return f();')), error: /stack overflow \(more than 256 KiB of stack\) — endless recursion\?$/ },
  { name: 'mutual recursion through getters', evaluation: codeEvaluation(expr('({ get a() { return this.b; }, get b() { return this.a; } }).a')), error: /stack overflow/ },
  {
    name: "require('fs')",
    evaluation: codeEvaluation(expr("require('fs').readFileSync('/etc/passwd')")),
    error: /ReferenceError: 'require' is not defined — workflow code runs in a sandbox without Node/,
  },
  { name: 'process.exit(1)', evaluation: codeEvaluation(stmts('process.exit(1)')), error: /ReferenceError: 'process' is not defined — workflow code runs in a sandbox without Node/ },
  { name: "import('fs')", evaluation: codeEvaluation(expr("import('fs')")), error: /^expression `import\('fs'\)` uses import, but the sandbox has no modules/ },
  { name: 'a static import', evaluation: codeEvaluation(stmts("import fs from 'fs'; fs.rmSync('/')")), error: /uses import/ },
  { name: 'globalThis.process.exit', evaluation: codeEvaluation(stmts('globalThis.process.exit(1)')), error: /TypeError: cannot read property 'exit' of undefined/ },
  { name: 'the Function constructor reaching for process', evaluation: codeEvaluation(expr("this.constructor.constructor('return process')()")), error: /'process' is not defined/ },
  { name: 'a function kept in common_data', evaluation: codeEvaluation(stmts('this.common_data.f = function () { return 1; }')), error: /^common_data: common_data\.f is a function: only JSON data/ },
  { name: 'a cycle in common_data', evaluation: codeEvaluation(stmts('this.common_data.me = { parent: this.common_data }')), error: /common_data\.me\.parent refers back to itself \(a cycle\)/ },
  { name: 'a BigInt in common_data', evaluation: codeEvaluation(stmts('this.common_data.n = 10n')), error: /common_data\.n is a BigInt/ },
  { name: 'a Map in common_data', evaluation: codeEvaluation(stmts('this.common_data.m = new Map([[1, 2]])')), error: /common_data\.m is a Map, not plain data/ },
  { name: 'a __proto__ key in common_data', evaluation: codeEvaluation(stmts('this.common_data.x = JSON.parse(\'{"__proto__": {"polluted": 1}}\')')), error: /common_data\.x has a key "__proto__"/ },
  { name: 'common_data replaced by a string', evaluation: codeEvaluation(stmts("this.common_data = 'gone'")), error: /common_data must stay an object, got "gone" \(string\)/ },
  { name: 'a value that is a function', evaluation: codeEvaluation(expr('() => () => 1'), scopeOf(), 'input'), error: /^expression `\(\) => \(\) => 1`: its value is a function: only JSON data/ },
  { name: 'a value that is a Promise', evaluation: codeEvaluation(expr('Promise.resolve(1)'), scopeOf(), 'input'), error: /its value is a Promise: workflow code runs synchronously/ },
  {
    name: 'an async handler',
    evaluation: codeEvaluation(handler('later'), scopeOf(), 'decide'),
    error: /^handler later: its value is a Promise: workflow code runs synchronously \(no async\/await\)$/,
  },
  { name: 'a syntax error', evaluation: codeEvaluation(stmts('this.common_data.x = ;')), error: /^script `this.common_data.x = ;`: syntax error: unexpected token in expression: ';'$/ },
  {
    name: 'a condition that returns a string',
    evaluation: transitionsEvaluation([{ condition: expr("'yes'"), before: null }]),
    error: /^transition 1 condition `'yes'`: condition must be true or false, got "yes" \(string\)$/,
  },
  {
    name: 'a condition that returns undefined',
    evaluation: transitionsEvaluation([{ condition: expr('function.approve.arguments.ok'), before: null }]),
    error: /condition must be true or false, got undefined$/,
  },
  { name: 'a thrown string', evaluation: codeEvaluation(stmts("throw 'boom'")), error: /^script `throw 'boom'`: threw boom$/ },
  {
    name: 'a thrown object whose message getter loops',
    evaluation: codeEvaluation(stmts('throw { name: "E", get message() { for (;;) {} } }')),
    error: /ran more than 5,000,000 steps — an endless loop\?$/,
  },
  {
    name: 'an unknown context',
    evaluation: codeEvaluation(stmts("this.getContext('nope').addMessage({ role: 'user', content: 'x' })"), scopeOf({ contexts: { main: [] } })),
    error: /Error: no context "nope" \(contexts: main\)$/,
  },
  {
    name: 'a bad message',
    evaluation: codeEvaluation(stmts("this.getContext('main').addMessage({ role: 'root', content: 'x' })"), scopeOf({ contexts: { main: [] } })),
    error: /TypeError: addMessage needs \{ role: "system" \| "user" \| "assistant", content: "..." \}/,
  },
  {
    name: 'nesting too deep for the host',
    evaluation: codeEvaluation(stmts('let o = {}; for (let i = 0; i < 1000; i++) o = { o: [o] }; this.common_data.deep = o;')),
    error: /^common_data: common_data nests deeper than 100 levels: keep workflow data flatter$/,
  },
  {
    name: 'nesting deep enough to take forever to serialise',
    evaluation: codeEvaluation(stmts('let o = {}; for (let i = 0; i < 1e5; i++) o = { o }; this.common_data.deep = o;')),
    error: /^common_data: common_data nests deeper than 100 levels: keep workflow data flatter$/,
  },
  {
    name: 'a result larger than allowed',
    evaluation: codeEvaluation(stmts("this.common_data.big = 'x'.repeat(2e6)")),
    error: /^common_data and the value are too large to keep \(1\.9 MiB; at most 1 MiB\)$/,
  },
  { name: 'code far too long', evaluation: codeEvaluation(expr(`1 + ${'1 + '.repeat(100_000)}1`)), error: /^expression `1 \+ 1 \+ .*\.\.\.` is too long \(391 KiB; at most 256 KiB\)$/ },
  { name: 'an empty expression', evaluation: codeEvaluation(expr('  ;')), error: /^expression is empty/ },
  { name: 'a handler name that is not a name', evaluation: codeEvaluation(handler('a-b'), scopeOf(), 'decide'), error: /^handler "a-b": a handler is named by a function name in script\.js$/ },
];

describe('hostile workflow code fails cleanly, and the next evaluation still works', () => {
  it.each(corpus)('$name', async ({ evaluation, error }) => {
    const message = errorOf(await sandbox.evaluate(evaluation));
    expect(message).toMatch(error);
    expect(message).not.toContain('\n');
    await stillWorks();
  });

  it("the limit counts the code's own steps, not time: the same loop passes or fails the same way on a busy machine", async () => {
    // A loop iteration is two of QuickJS's ticks: 2,000,000 of them are 4,000,000 steps, 3,000,000 are 6,000,000.
    const loop = (n: number) => codeEvaluation(stmts(`let i = 0; while (i < ${n}) i++; return i;`), scopeOf(), 'input');
    expect(await sandbox.evaluate(loop(2_000_000))).toMatchObject({ ok: true, value: 2_000_000 });
    expect(errorOf(await sandbox.evaluate(loop(3_000_000)))).toMatch(/: ran more than 5,000,000 steps — an endless loop\?$/);
  });

  it('nothing of the host is reachable: no Node globals, no host functions', async () => {
    const probe =
      '[typeof process, typeof require, typeof module, typeof Buffer, typeof setTimeout, typeof fetch, typeof WebAssembly, typeof __troupe_run, typeof load, typeof Proxy, typeof __troupe_where, typeof sources, typeof core, typeof run, typeof harden]';
    expect(await sandbox.evaluate(codeEvaluation(expr(probe), scopeOf(), 'input'))).toMatchObject({ ok: true, value: Array(15).fill('undefined') });
  });
});

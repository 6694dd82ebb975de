import { describe, expect, it } from 'vitest';
import { loadScriptModule } from '../../../src/workflow/sandbox/script-module.js';
import { runsOnce } from '../../../src/workflow/sandbox/script-once.js';
import { SEED_001_SCRIPT } from './fixtures.js';

// runsOnce reads script.js as loadScriptModule leaves it (export keywords gone, export default as __default).
const once = (script: string): boolean => {
  const module = loadScriptModule(script);
  if (!module.ok) throw new Error(module.error);
  return runsOnce(module.source);
};

describe('runsOnce: which script.js may run its top level once per context', () => {
  it.each([
    ['seed 001 (exported handlers, helpers called by name and through this)', SEED_001_SCRIPT],
    ['handlers only', 'export function pre() { this.common_data.n = (this.common_data.n || 0) + 1; }\nexport function choose() { return "a"; }'],
    ['const primitives', "const LIMIT = 3, NAME = 'x', NEG = -1, T = `plain`;\nconst NOTHING = null;\nexport function f() { return LIMIT + NAME + NEG + T; }"],
    ['async and generator functions', 'async function a() { return 1; }\nfunction* g() { yield 1; }\nexport function f() { return [...g()]; }'],
    [
      "SynthDev's export default object of methods",
      'export default { pre() { this.common_data.x = 1; }, "post": function () { return helper(); }, async later() {}, *gen() {}, n: 1 };\nfunction helper() { return 2; }',
    ],
    ['a const reassigned (QuickJS refuses it: the binding cannot change)', 'const N = 1;\nexport function f() { N = 2; }'],
    ["a 'use strict' directive", "'use strict';\nexport function f() { return 1; }"],
    ['locals, closures and objects made inside functions (afresh each call)', 'export function f() { let n = 0; const o = { input: 1 }; const inc = () => ++n; inc(); return o.input + n; }'],
  ])('runs once: %s', (_name, script) => {
    expect(once(script)).toBe(true);
  });

  it.each([
    ['a top-level let (a handler can change it)', 'let calls = 0;\nexport function count() { calls += 1; return calls; }'],
    ['a top-level var', 'var calls = 0;\nexport function count() { return calls; }'],
    ['a const object (a handler could change it; frozen it would fail silently)', 'const cache = {};\nexport function f() { cache.a = 1; return cache.a; }'],
    ['a const array', 'const seen = [];\nexport function f() { seen.push(1); }'],
    ['a const function expression', 'const f = function () { return 1; };'],
    ['a const arrow function', 'const f = () => 1;'],
    ['a call at the top level', 'function make() { let n = 0; return function () { return ++n; }; }\nconst counter = make();'],
    ['an IIFE', '(function () { globalThis.x = 1; })();'],
    ['a class', 'class A {}\nexport function f() { return new A(); }'],
    ['a regex literal (a `/` a scan may misread)', 'const R = /a/g;'],
    ['a division (a `/` a scan may misread)', 'export function f() { return 1 / 2; }'],
    ['a function name assigned', 'export function helper() { return 1; }\nexport function attack() { helper = function () { return 2; }; }'],
    ['a function name incremented', 'export function helper() {}\nexport function attack() { helper++; }'],
    ['a function name taken as a value', 'export function helper() {}\nexport function attack() { const h = helper; h.x = 1; }'],
    ['a function name in a destructuring target', 'export function helper() {}\nexport function attack() { [helper] = [1]; }'],
    ['eval (a direct eval can reassign a binding)', 'export function helper() {}\nexport function attack() { eval("helper = 1"); }'],
    ['an escaped name (\\u0070re is pre)', 'export function pre() {}\nexport function attack() { \\u0070re = 1; }'],
    ['an HTML-like comment', 'export function f() { return 1; }\n<!-- x'],
    ["a scope name as a free variable (it would keep the first evaluation's value)", 'export function f() { return common_data.x; }'],
    ['the free name input', 'export function f() { return input; }'],
    ['a getter in the default export', 'export default { get x() { return 1; } };'],
    ["an arrow in the default export (its this is the top level's)", 'export default { f: () => this };'],
    ['a computed key in the default export', 'export default { ["f"]() {} };'],
    ['a template with a substitution', 'const T = `a${1}`;'],
    ['a top-level statement other than a declaration', 'export function f() {}\nif (true) {}'],
    ['a second statement glued on without a semicolon', 'const A = 1\n[0]'],
    ['a string that is not a directive (an expression statement)', "'use strict' + 1;\nexport function f() {}"],
  ])('runs afresh every time: %s', (_name, script) => {
    expect(once(script)).toBe(false);
  });
});

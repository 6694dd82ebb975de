import { beforeAll, describe, expect, it } from 'vitest';
import type { Evaluation, EvaluationResult } from '../../../src/engine/evaluation.js';
import type { SandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, expr, handler, PLACEMENTS, sandboxSessions, scopeOf, stmts } from './fixtures.js';

// A session's context serves all its evaluations (a fresh one costs more than the evaluation). Each attack
// here runs in that context, and the probe after it must find everything as a fresh context would. One
// thread, so attack and probe meet in the same worker; the attacks succeed (a failed evaluation's context is
// thrown away, which would prove nothing), except where failing is how the sandbox refuses them. The same
// attacks run in both places a context can be (PLACEMENTS).
const script = 'let calls = 0;\nexport function count() { calls += 1; return calls; }';

describe.each(PLACEMENTS)('nothing an evaluation does carries over to the next one of its session, $placement', ({ inline }) => {
  const sessions = sandboxSessions(inline, [script, script], codeEvaluation(expr('[1].length'), scopeOf(), 'input'), 20);
  let session: SandboxEvaluator;
  let other: SandboxEvaluator;
  beforeAll(() => {
    [session, other] = sessions() as [SandboxEvaluator, SandboxEvaluator];
  });

  const value = async (evaluation: Evaluation, on = session): Promise<unknown> => {
    const result: EvaluationResult = await on.evaluate(evaluation);
    if (!result.ok) throw new Error(result.error);
    return result.value;
  };
  const run = (source: string) => session.evaluate(codeEvaluation(stmts(source)));
  const probe = (source: string, on = session) => value(codeEvaluation(expr(source), scopeOf(), 'input'), on);

  const attacks: { name: string; attack: string; probe: string; clean: unknown }[] = [
    { name: 'Array.prototype.find replaced', attack: 'Array.prototype.find = function () { return "evil"; }', probe: '[1, 2].find((x) => x === 2)', clean: 2 },
    { name: 'Object.prototype polluted', attack: 'Object.prototype.polluted = 1; ({}).__proto__.also = 2', probe: '[typeof ({}).polluted, typeof ({}).also]', clean: ['undefined', 'undefined'] },
    { name: 'JSON.parse replaced', attack: 'JSON.parse = function () { return { evil: true }; }', probe: 'JSON.parse(\'{"a":1}\').a', clean: 1 },
    { name: 'Math.random replaced', attack: 'Math.random = function () { return 4; }', probe: 'Math.random() < 1', clean: true },
    {
      name: "console (the guest's own object) changed",
      attack: 'console.log = function () {}; console.evil = 1',
      probe: '[typeof console.evil, (console.log("still here"), 1)]',
      clean: ['undefined', 1],
    },
    {
      name: 'a global made by assignment',
      attack: 'leaked = 42; globalThis.also = 1; globalThis[Symbol.for("s")] = 1',
      probe: '[typeof leaked, typeof also, globalThis[Symbol.for("s")]]',
      clean: ['undefined', 'undefined', null],
    },
    {
      name: 'a hidden (non-enumerable) global defined',
      attack:
        'Reflect.defineProperty(globalThis, "hidden", { value: 1, configurable: true }); Object.defineProperties(globalThis, { hidden2: { value: 2, configurable: true } }); Object.defineProperty(globalThis, "hidden3", { get() { return 3; }, configurable: true })',
      probe:
        '[typeof hidden, typeof hidden2, typeof hidden3, typeof Object.defineProperty({}, "x", { value: 1 }).x, new Function("try { new Object.defineProperty({}, \'x\', {}); return 1; } catch (e) { return e.name; }")()]',
      clean: ['undefined', 'undefined', 'undefined', 'number', 'TypeError'],
    },
    { name: 'a global var from indirect eval', attack: '(0, eval)("var fromEval = 1; function fnFromEval() {}")', probe: '[typeof fromEval, typeof fnFromEval]', clean: ['undefined', 'undefined'] },
    {
      name: 'an existing global replaced',
      attack: 'JSON = { parse: function () { return 0; } }; Array = null',
      probe: '[typeof JSON.stringify, typeof Array.isArray]',
      clean: ['function', 'function'],
    },
    {
      name: "a frozen built-in's prototype method shadowed on an instance still works",
      attack: 'var e = new Error("x"); e.name = "Mine"; var o = {}; o.toString = function () { return "mine"; }; this.common_data.seen = e.name + " " + String(o)',
      probe: 'Error.prototype.name + " " + String({})',
      clean: 'Error [object Object]',
    },
    { name: 'a promise job left behind', attack: 'Promise.resolve().then(function () { globalThis.late = 1; })', probe: 'typeof late', clean: 'undefined' },
  ];

  describe('attack then probe', () => {
    it('built-ins are frozen, yet code still sets the names it commonly overrides on its own objects (e.name = ..., o.toString = ...)', async () => {
      const set = await run(
        'var e = new TypeError("x"); e.name = "Mine"; var o = {}; o.toString = function () { return "mine"; }; var a = []; a.push = 1; this.common_data.seen = [e.name, String(o), a.push, Object.isFrozen(Error.prototype), Object.isFrozen(Array.prototype)]',
      );
      expect(set).toMatchObject({ ok: true, common_data: { seen: ['Mine', 'mine', 1, true, true] } });
      expect(await probe('[new TypeError("y").name, String({}), typeof [].push]')).toEqual(['TypeError', '[object Object]', 'function']);
      const refused = await run('Error.prototype.name = "Evil"');
      expect(refused).toMatchObject({ ok: false, error: expect.stringContaining('TypeError: the built-in name cannot be changed (built-ins are frozen in the sandbox)') });
    });

    it.each(attacks)('$name', async ({ attack, probe: check, clean }) => {
      const ranHere = inline ? inline.counts.inline : 0;
      const attacked = await run(attack);
      expect(attacked.ok).toBe(true);
      expect(await probe(check)).toEqual(clean);
      // Attack and probe both met the calling thread's context (but for the promise job, which has it thrown away).
      if (inline && !attack.includes('Promise')) expect(inline.counts.inline - ranHere).toBe(2);
    });

    it('a global that cannot be deleted, a new prototype or a sealed global object: the context is thrown away', async () => {
      for (const attack of ['Object.defineProperty(globalThis, "stuck", { value: 1 })', 'Object.setPrototypeOf(globalThis, { evil: 1 })', 'Object.preventExtensions(globalThis)']) {
        expect((await run(attack)).ok).toBe(true);
        expect(await probe('[typeof stuck, typeof evil, (function () { made = 1; return made; })()]')).toEqual(['undefined', 'undefined', 1]);
      }
    });

    it('a built-in changed through defineProperty fails the evaluation; the next one finds it intact', async () => {
      const refused = await run('Object.defineProperty(Array.prototype, "find", { value: function () { return "evil"; } })');
      expect(refused).toMatchObject({ ok: false, error: expect.stringMatching(/TypeError/) });
      expect(await probe('[1, 2].find((x) => x === 2)')).toBe(2);
    });

    it('a compiled piece is kept, frozen: code that changes itself (arguments.callee) finds itself unchanged the next time', async () => {
      const selfChanging = codeEvaluation(
        stmts('var seen = [typeof arguments.callee.evil, typeof arguments.callee.prototype.evil]; arguments.callee.evil = 1; arguments.callee.prototype.evil = 2; return seen;'),
        scopeOf(),
        'decide',
      );
      expect(await value(selfChanging)).toEqual(['undefined', 'undefined']);
      expect(await value(selfChanging)).toEqual(['undefined', 'undefined']);
    });

    it('script.js starts over every time: its top-level variables never carry over', async () => {
      expect(await value(codeEvaluation(handler('count'), scopeOf(), 'decide'))).toBe(1);
      expect(await value(codeEvaluation(handler('count'), scopeOf(), 'decide'))).toBe(1);
    });

    it("sessions share the thread, never a context: one session's attacks are not seen by another", async () => {
      // All but the promise job, which gets the attacker's context thrown away.
      const kept = attacks.filter((a) => !a.attack.includes('Promise'));
      for (const { attack } of kept) expect((await run(attack)).ok).toBe(true);
      for (const { probe: check, clean } of kept) expect(await probe(check, other)).toEqual(clean);
    });
  });
});

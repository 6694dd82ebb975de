import { beforeAll, describe, expect, it } from 'vitest';
import type { SandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, expr, PLACEMENTS, sandboxSessions, scopeOf, stmts } from './fixtures.js';

// The sweep after each part counts the global object's enumerable properties by copying them with a spread,
// which reads them: a getter code put on the global object runs then. Whatever it does there (make the global
// object non-extensible, give it a prototype, add globals, throw), the next evaluation of the session finds
// the global object as a fresh context has it.
const getter = (body: string, key = '"g"') => `Object.prototype.__defineGetter__.call(globalThis, ${key}, function () { ${body} }); return 1;`;

describe.each(PLACEMENTS)('a getter on the global object, run by the sweep, leaves nothing behind, $placement', ({ inline }) => {
  const sessions = sandboxSessions(inline, [''], codeEvaluation(expr('[1].length'), scopeOf(), 'input'), 1);
  let session: SandboxEvaluator;
  beforeAll(() => {
    [session] = sessions() as [SandboxEvaluator];
  });
  const probe = async (source: string): Promise<unknown> => {
    const result = await session.evaluate(codeEvaluation(expr(source), scopeOf(), 'input'));
    if (!result.ok) throw new Error(result.error);
    return result.value;
  };

  it.each([
    ['makes the global object non-extensible', getter('Object.preventExtensions(globalThis); return 1;'), '[typeof g, (function () { made = 1; return made; })()]', ['undefined', 1]],
    ['gives the global object a prototype', getter('Object.setPrototypeOf(globalThis, { evil: 1 }); return 1;'), '[typeof g, typeof evil]', ['undefined', 'undefined']],
    [
      'adds globals, one of them hidden',
      getter('globalThis.late = 1; Object.defineProperty(globalThis, "hidden", { value: 1, configurable: true }); return 1;'),
      '[typeof g, typeof late, typeof hidden]',
      ['undefined', 'undefined', 'undefined'],
    ],
    ['throws', getter('throw new Error("no");'), 'typeof g', 'undefined'],
    ['is keyed by a symbol and adds a global', getter('globalThis.late = 1; return 1;', 'Symbol.for("g")'), '[globalThis[Symbol.for("g")], typeof late]', [null, 'undefined']],
  ])('one that %s', async (_name, attack, check, clean) => {
    const attacked = await session.evaluate(codeEvaluation(stmts(attack)));
    expect(attacked.ok).toBe(true);
    expect(await probe(check)).toEqual(clean);
  });
});

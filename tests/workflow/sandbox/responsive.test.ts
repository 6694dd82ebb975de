import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxEvaluator, SandboxPool, sharedInlineSandbox } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, scopeOf, stmts } from './fixtures.js';

// A built-in that polls no interrupt: QuickJS asks the interrupt handler about once a second of this loop
// (measured: 1.1-1.4 s at 2,000 numbers, 22 s at 20,000), so no step budget can stop it sooner. Kept as
// test data: by default it must run off the event loop.
const SORT_LOOP = 'const a = Array.from({ length: 2000 }, (_, i) => (i * 7919) % 2000); for (;;) a.slice().sort();';

const pool = new SandboxPool({ size: 1 });
afterAll(() => pool.close());

// Why no rule on the code's shape lets the default run a job on this thread (README, "Where code runs"): these
// have no loop statement, no function at all (so no recursion), and tiny data, yet one built-in call runs for
// as long as they like without QuickJS asking the interrupt handler. Measured on the calling thread (inline
// opt-in, `node --import tsx bench/inline-hold.ts`): indexOf over an array-like of length 3e7 held it 0.8 s (so
// years at 2 ** 53 - 1); the same with no call syntax at all, through valueOf; a string search of 100,000
// characters in 200,000 (300 KB, within the inline context's 1 MiB) 11 s.
const LOOP_FREE: Record<string, string> = {
  'indexOf over a huge array-like': 'return Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 0);',
  'the same through valueOf, with no call syntax': 'return ({ valueOf: [].indexOf, length: 2 ** 53 - 1 }) + 1;',
  'a quadratic string search': "const s = 'a'.repeat(2000000); return s.indexOf('a'.repeat(1000000) + 'b');",
};

describe('workflow code never holds the event loop by default', () => {
  it.each([['a sort loop', SORT_LOOP], ...Object.entries(LOOP_FREE)])('%s runs off this thread: a timer fires while it runs, and its abort ends it', async (_name, source) => {
    const session = createSandboxEvaluator({ pool });
    const before = sharedInlineSandbox().counts.inline + sharedInlineSandbox().counts.pool;
    const abort = new AbortController();
    let ticks = 0;
    // On the calling thread neither the interval nor the abort could run before the loop's first interrupt check.
    const tick = setInterval(() => {
      ticks += 1;
      if (ticks === 3) abort.abort();
    }, 20);
    const answer = await session.evaluate(codeEvaluation(stmts(source), scopeOf()), abort.signal);
    clearInterval(tick);
    expect(answer).toEqual({ ok: false, error: 'cancelled' });
    expect(ticks).toBeGreaterThanOrEqual(3);
    expect(sharedInlineSandbox().counts.inline + sharedInlineSandbox().counts.pool).toBe(before);
    await session.close();
  });
});

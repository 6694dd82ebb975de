import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxEvaluator, SandboxPool, sharedInlineSandbox } from '../../../src/workflow/sandbox/index.js';
import { codeEvaluation, scopeOf, stmts } from './fixtures.js';

// A built-in that polls no interrupt: QuickJS asks the interrupt handler about once a second of this loop
// (measured: 1.1-1.4 s at 2,000 numbers, 22 s at 20,000), so no step budget can stop it sooner. Kept as
// test data: by default it must run off the event loop.
const SORT_LOOP = 'const a = Array.from({ length: 2000 }, (_, i) => (i * 7919) % 2000); for (;;) a.slice().sort();';

const pool = new SandboxPool({ size: 1 });
afterAll(() => pool.close());

describe('workflow code never holds the event loop by default', () => {
  it('a sort loop runs off this thread: a timer fires while it runs, and its abort ends it', async () => {
    const session = createSandboxEvaluator({ pool });
    const before = sharedInlineSandbox().counts.inline + sharedInlineSandbox().counts.pool;
    const abort = new AbortController();
    let ticks = 0;
    // On the calling thread neither the interval nor the abort could run before the loop's first interrupt check.
    const tick = setInterval(() => {
      ticks += 1;
      if (ticks === 3) abort.abort();
    }, 20);
    const answer = await session.evaluate(codeEvaluation(stmts(SORT_LOOP), scopeOf()), abort.signal);
    clearInterval(tick);
    expect(answer).toEqual({ ok: false, error: 'cancelled' });
    expect(ticks).toBeGreaterThanOrEqual(3);
    expect(sharedInlineSandbox().counts.inline + sharedInlineSandbox().counts.pool).toBe(before);
    await session.close();
  });
});

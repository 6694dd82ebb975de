import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxEvaluator, SandboxPool, sharedSandboxPool } from '../../../src/workflow/sandbox/index.js';
import { workerEntry } from '../../../src/workflow/sandbox/worker-entry.js';
import { codeEvaluation, expr, scopeOf, stmts } from './fixtures.js';

// A built-in the step limit cannot interrupt: it runs for minutes, until the backstop or an abort.
const SLOW = "'a'.repeat(2e6).indexOf('a'.repeat(1e5) + 'b')";
const sum = (n: number) => codeEvaluation(expr(`common_data.n + ${n}`), scopeOf({ common_data: { n: 1 } }), 'input');

describe('the shared pool of sandbox threads', () => {
  const pool = new SandboxPool({ size: 2 });
  afterAll(() => pool.close());

  it('sessions run side by side: one stuck in a slow built-in holds up no other', async () => {
    const stuck = createSandboxEvaluator({ pool, backstopMs: 600_000 });
    const other = createSandboxEvaluator({ pool });
    const abort = new AbortController();
    const running = stuck.evaluate(codeEvaluation(expr(SLOW)), abort.signal);
    // The stuck one can only end by the abort below: the other's answers come from the second thread.
    for (let i = 0; i < 3; i++) expect(await other.evaluate(sum(i))).toMatchObject({ ok: true, value: 1 + i });
    abort.abort();
    expect(await running).toEqual({ ok: false, error: 'cancelled' });
    expect(await stuck.evaluate(sum(10))).toMatchObject({ ok: true, value: 11 });
    await stuck.close();
    await other.close();
  });

  it('the wall-clock backstop stops only what the step limit cannot see, says so, and a new thread takes over', async () => {
    const session = createSandboxEvaluator({ pool, backstopMs: 1500 });
    const stopped = await session.evaluate(codeEvaluation(expr(SLOW)));
    expect(stopped).toEqual({
      ok: false,
      error:
        'the evaluation: still running after 1.5 s of wall-clock time, so the sandbox was stopped — a slow built-in (a huge string search, sort or join) that the step limit cannot interrupt, or a machine far too busy',
    });
    expect(await session.evaluate(sum(2))).toMatchObject({ ok: true, value: 3 });
    await session.close();
  });

  it('a session closing on a shared pool leaves the pool serving the others', async () => {
    const leaving = createSandboxEvaluator({ pool });
    const staying = createSandboxEvaluator({ pool });
    expect(await leaving.evaluate(sum(1))).toMatchObject({ ok: true });
    await leaving.close();
    expect(await leaving.evaluate(sum(1))).toEqual({ ok: false, error: 'the sandbox is closed' });
    expect(await staying.evaluate(sum(4))).toMatchObject({ ok: true, value: 5 });
    await staying.close();
  });

  it('the process has one pool, made on first use', () => {
    expect(sharedSandboxPool()).toBe(sharedSandboxPool());
  });
});

describe('a cold start never counts against an evaluation', () => {
  // A thread that takes 3 s to come up (a loaded machine, a cold disk), then starts the real worker.
  const slowStart = () => new URL(`data:text/javascript,${encodeURIComponent(`await new Promise((r) => setTimeout(r, 3000)); await import(${JSON.stringify(workerEntry().href)});`)}`);
  const pool = new SandboxPool({ size: 1, entry: slowStart });
  afterAll(() => pool.close());

  it('the backstop clock starts when the thread is up: a 2 s backstop, a 3 s start, the evaluation succeeds', async () => {
    const session = createSandboxEvaluator({ pool, backstopMs: 2000 });
    expect(await session.evaluate(codeEvaluation(stmts('let s = 0; for (let i = 0; i < 1e5; i++) s += i; return s;'), scopeOf(), 'input'))).toMatchObject({ ok: true, value: 4999950000 });
    await session.close();
  }, 60_000);
});

describe("a session's jobs stay on the thread holding its context", () => {
  // How many contexts the pool's threads hold, all sessions together.
  const contexts = (pool: SandboxPool) => (pool as unknown as { workers: { sessions: Set<string> }[] }).workers.reduce((n, w) => n + w.sessions.size, 0);
  // About half a second of guest work (within the step limit) that ends by itself.
  const LONG = codeEvaluation(stmts('let s = 0; for (let i = 0; i < 3e6; i++) s += i; return s;'), scopeOf(), 'input');

  it('while another session runs a job there, the next job waits for that thread rather than opening a context on an idle one', async () => {
    // A clock that never moves: the job running there never counts as long.
    const pool = new SandboxPool({ size: 2, now: () => 0 });
    const a = createSandboxEvaluator({ pool });
    const b = createSandboxEvaluator({ pool });
    try {
      expect(await a.evaluate(sum(0))).toMatchObject({ ok: true });
      // b's first job goes to the started thread, the one holding a's context; a's next finds it busy.
      const long = b.evaluate(LONG);
      const next = a.evaluate(sum(1));
      expect(await next).toMatchObject({ ok: true, value: 2 });
      expect(await long).toMatchObject({ ok: true });
      // One thread holds both (before: a's context opened on the idle thread too, 3).
      expect(contexts(pool)).toBe(2);
    } finally {
      await a.close();
      await b.close();
      await pool.close();
    }
  });

  it('unless the job running there has run long: then an idle thread opens a context for it', async () => {
    let now = 0;
    const pool = new SandboxPool({ size: 2, now: () => now });
    const a = createSandboxEvaluator({ pool });
    const b = createSandboxEvaluator({ pool, backstopMs: 600_000 });
    const abort = new AbortController();
    try {
      expect(await a.evaluate(sum(0))).toMatchObject({ ok: true });
      const stuck = b.evaluate(codeEvaluation(expr(SLOW)), abort.signal);
      const next = a.evaluate(sum(1));
      // b's job has now run a minute: a's goes to the other thread (with the clock still, it would wait for b's).
      now = 60_000;
      expect(await next).toMatchObject({ ok: true, value: 2 });
      abort.abort();
      expect(await stuck).toEqual({ ok: false, error: 'cancelled' });
    } finally {
      await a.close();
      await b.close();
      await pool.close();
    }
  });
});

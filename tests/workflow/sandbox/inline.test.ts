import { afterAll, describe, expect, it } from 'vitest';
import type { Evaluation } from '../../../src/engine/evaluation.js';
import { createSandboxEvaluator, InlineSandbox, SandboxPool, type SandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { STEPS_PER_INTERRUPT } from '../../../src/workflow/sandbox/program.js';
import { codeEvaluation, expr, handler, scopeOf, SEED_001_SCRIPT, stmts, template, transitionsEvaluation } from './fixtures.js';

// Jobs on the calling thread: the same answers as the pool, never more guest work on the event loop than
// the small budget, and a pool for everything else.
const pool = new SandboxPool({ size: 1 });
afterAll(() => pool.close());
// No deadline to speak of, so a busy machine cannot move a job to the pool under a test that counts where it ran.
const PATIENT = { wallMs: 600_000 };
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A session on the pool only, and one that runs what it can here (its context made before the first check). */
async function pair(inline: InlineSandbox, options: { maxSteps?: number } = {}): Promise<{ here: SandboxEvaluator; there: SandboxEvaluator; close: () => Promise<void> }> {
  await inline.ready();
  const here = createSandboxEvaluator({ pool, inline, scriptFor: () => SEED_001_SCRIPT, ...options });
  const there = createSandboxEvaluator({ pool, inline: false, scriptFor: () => SEED_001_SCRIPT, ...options });
  // The first job of a session finds no context here: it goes to the pool, and the context is made after it.
  await here.evaluate(codeEvaluation(expr('[1].length'), scopeOf(), 'input'));
  await turn();
  return { here, there, close: async () => Promise.all([here.close(), there.close()]).then(() => undefined) };
}

const scope = scopeOf({ common_data: { n: 1, task_description: 'a game', list: [1, 2, 3] }, last_agent_response: 'Complexity: high', input: 'the input' });
const corpus: [string, Evaluation][] = [
  ['an expression', codeEvaluation(expr('common_data.n + 1'), scope, 'input')],
  ['statements that change common_data and log', codeEvaluation(stmts('this.common_data.m = this.common_data.list.map((x) => x * 2); console.log("seen", this.common_data.n)'), scope)],
  ['fields, a template among them', { workflow: 'wf', state: 's', purpose: 'sub_input', fields: { a: expr('common_data.n * 3'), b: template('Task {task_description}: {missing}') }, scope }],
  [
    'transitions and a before',
    transitionsEvaluation(
      [
        { condition: expr('common_data.n > 5'), before: null },
        { condition: expr('common_data.n === 1'), before: stmts('this.common_data.took = 2') },
      ],
      scope,
    ),
  ],
  ['a script.js handler with helpers and a context message', codeEvaluation(handler('processAnalysis'), scope, 'after')],
  ['a handler that chooses the next state', codeEvaluation(handler('initializeWorkflow'), scope, 'enter')],
];

describe('jobs on the calling thread', () => {
  it.each(corpus)('%s: the same answer here as on the pool, and it ran here', async (_name, evaluation) => {
    const inline = new InlineSandbox(PATIENT);
    const { here, there, close } = await pair(inline);
    const before = inline.counts.inline;
    const mine = await here.evaluate(evaluation);
    expect(inline.counts.inline).toBe(before + 1);
    expect(mine).toEqual(await there.evaluate(evaluation));
    expect(mine.ok).toBe(true);
    await close();
  });

  it('a job over the budget gives the pool answer, after no more than the budget here; the session then stays on the pool', async () => {
    const inline = new InlineSandbox({ ...PATIENT, budgetSteps: 100_000 });
    const { here, there, close } = await pair(inline);
    const long = codeEvaluation(stmts('let s = 0; for (let i = 0; i < 3000000; i++) s += i % 7; return s;'), scopeOf(), 'input');
    const mine = await here.evaluate(long);
    expect(inline.counts.overran).toBe(1);
    expect(inline.counts.mostInterrupts).toBeLessThanOrEqual(100_000 / STEPS_PER_INTERRUPT + 2);
    expect(mine).toEqual(await there.evaluate(long));
    expect(mine).toMatchObject({ ok: true, value: 8999994 });
    const pooled = inline.counts.pool;
    expect(await here.evaluate(codeEvaluation(expr('[2][0]'), scopeOf(), 'input'))).toMatchObject({ ok: true, value: 2 });
    expect(inline.counts.pool).toBe(pooled + 1);
    await close();
  });

  it('an endless loop is stopped here at the budget and fails on the pool with the limit the workflow set', async () => {
    const inline = new InlineSandbox({ ...PATIENT, budgetSteps: 100_000 });
    const { here, close } = await pair(inline, { maxSteps: 2_000_000 });
    expect(await here.evaluate(codeEvaluation(expr('while(true){}')))).toEqual({ ok: false, error: 'expression `while(true){}`: ran more than 2,000,000 steps — an endless loop?' });
    expect(inline.counts.mostInterrupts).toBeLessThanOrEqual(12);
    await close();
  });

  it('a failure is answered by the pool, word for word, and the context here is thrown away', async () => {
    const inline = new InlineSandbox(PATIENT);
    const { here, there, close } = await pair(inline);
    const broken = codeEvaluation(stmts('this.common_data.x = undefinedName.y'), scope);
    const mine = await here.evaluate(broken);
    expect(mine).toEqual(await there.evaluate(broken));
    expect(mine.ok).toBe(false);
    expect(inline.counts.inline).toBe(0);
    await close();
  });

  it('a slow built-in on data past the small memory never runs here: the event loop stays free and the abort works', async () => {
    const inline = new InlineSandbox(PATIENT);
    const { here, close } = await pair(inline);
    const abort = new AbortController();
    // Were it run on this thread, the timer could not fire until the search ended (minutes).
    const timer = setTimeout(() => abort.abort(), 300);
    expect(await here.evaluate(codeEvaluation(expr("'a'.repeat(2e6).indexOf('a'.repeat(1e5) + 'b')")), abort.signal)).toEqual({ ok: false, error: 'cancelled' });
    clearTimeout(timer);
    expect(inline.counts.inline).toBe(0);
    await close();
  });

  it('contexts here are bounded: a session past the bound runs on the pool', async () => {
    const inline = new InlineSandbox({ ...PATIENT, maxContexts: 1 });
    const first = await pair(inline);
    const second = await pair(inline);
    const before = { ...inline.counts };
    await first.here.evaluate(codeEvaluation(expr('[3][0]'), scopeOf(), 'input'));
    await second.here.evaluate(codeEvaluation(expr('[4][0]'), scopeOf(), 'input'));
    expect(inline.counts.inline - before.inline).toBe(1);
    expect(inline.counts.pool - before.pool).toBe(1);
    // A session that ends gives its place up.
    await first.close();
    await second.here.evaluate(codeEvaluation(expr('[5][0]'), scopeOf(), 'input'));
    await turn();
    const after = inline.counts.inline;
    expect(await second.here.evaluate(codeEvaluation(expr('[6][0]'), scopeOf(), 'input'))).toMatchObject({ ok: true, value: 6 });
    expect(inline.counts.inline).toBe(after + 1);
    await second.close();
  });
});

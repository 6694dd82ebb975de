import { describe, expect, it } from 'vitest';
import type { EvaluationResult } from '../../../src/engine/evaluation.js';
import { DEFAULT_LIMITS } from '../../../src/workflow/sandbox/program.js';
import { runJob, type Job } from '../../../src/workflow/sandbox/run-job.js';
import { codeEvaluation, jobOf, scopeOf, stmts, guestContextFor } from './fixtures.js';

// A job's parts run in one call into the guest, but each still has the whole step limit of its own: the
// interrupt handler starts a part's count when the guest moves on to it. Each loop iteration here is about two
// interpreter steps, so BURN(300_000) takes about 60% of a 1,000,000-step limit and BURN(600_000) 120%.
const LIMITS = { ...DEFAULT_LIMITS, maxSteps: 1_000_000 };
const BURN = (n: number, key: string) => `var n = 0; for (var i = 0; i < ${n}; i++) n++; common_data.${key} = n;`;
const chained = (first: string, second: string): Job => ({
  ...jobOf({ ...codeEvaluation(stmts(first), scopeOf(), 'after'), next: { purpose: 'decide', code: stmts(second) } }),
  limits: LIMITS,
});

describe('each part of a job has its own step limit', () => {
  const guest = guestContextFor(LIMITS);

  it('two parts that each take 60% of the limit both succeed (together they take 120% of it)', () => {
    const outcome = runJob(chained(BURN(300_000, 'a'), BURN(300_000, 'b')), guest());
    const result = JSON.parse(outcome.result) as EvaluationResult & { next?: EvaluationResult };
    expect(result).toMatchObject({ ok: true, common_data: { a: 300_000 }, next: { ok: true, common_data: { a: 300_000, b: 300_000 } } });
    expect(outcome.keep).toBe(true);
  });

  it('a second part over the limit fails with the limit, after the first part’s result', () => {
    const outcome = runJob(chained(BURN(1000, 'a'), BURN(600_000, 'b')), guest());
    const result = JSON.parse(outcome.result) as EvaluationResult & { next?: EvaluationResult };
    expect(result).toMatchObject({ ok: true, common_data: { a: 1000 } });
    expect(result.next).toMatchObject({ ok: false });
    expect((result.next as { error: string }).error).toContain('1,000,000');
    expect(outcome.keep).toBe(false);
  });
});

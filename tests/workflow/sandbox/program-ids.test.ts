import { describe, expect, it, vi } from 'vitest';
import type { GuestContext } from '../../../src/workflow/sandbox/guest-context.js';
import { runJob, type Job } from '../../../src/workflow/sandbox/run-job.js';
import { codeEvaluation, expr, scopeOf, jobOf as jobFor, guestContextFor } from './fixtures.js';

// A context is sent a program's JSON once (then only its id); one that dropped it (its cache of 256 programs
// filled and started over) asks for it again, and the evaluation runs as if nothing happened.
const jobOf = (source: string): Job => jobFor(codeEvaluation(expr(source), scopeOf({ common_data: { n: 2 } }), 'input'));
const answerOf = (job: Job, guest: GuestContext): unknown => (JSON.parse(runJob(job, guest).result) as { value?: unknown; error?: string }).value;

describe('programs travel into a context once', () => {
  const guest = guestContextFor();

  it('the second evaluation of a program sends its id, not its JSON', () => {
    const job = jobOf('common_data.n * 21');
    expect(answerOf(job, guest())).toBe(42);
    const sent = vi.spyOn(guest().context, 'newString');
    expect(answerOf(job, guest())).toBe(42);
    expect(sent.mock.calls.map(([text]) => text)).not.toContain(job.parts[0]!.program);
    sent.mockRestore();
  });

  it('after 300 other programs (the context dropped the first), the first still runs', () => {
    const first = jobOf('common_data.n + 1');
    expect(answerOf(first, guest())).toBe(3);
    for (let i = 0; i < 300; i++) expect(answerOf(jobOf(`common_data.n + ${i + 10}`), guest())).toBe(i + 12);
    expect(answerOf(first, guest())).toBe(3);
  });
});

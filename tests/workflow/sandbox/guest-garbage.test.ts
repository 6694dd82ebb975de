import { describe, expect, it } from 'vitest';
import type { GuestContext } from '../../../src/workflow/sandbox/guest-context.js';
import { runJob, type Job } from '../../../src/workflow/sandbox/run-job.js';
import { codeEvaluation, expr, scopeOf, stmts, jobOf as jobFor, guestContextFor } from './fixtures.js';

// An evaluation's data must be freed when it ends, by QuickJS's reference counting: anything it leaves in a
// cycle waits for the cycle collector, which walks every object of the context (all the frozen built-ins)
// and runs, unbidden, inside a later evaluation.
const jobOf = (code: Parameters<typeof codeEvaluation>[0]): Job => jobFor(codeEvaluation(code, scopeOf({ common_data: { n: 2, list: [1, 2, 3] } }), 'input'));
const answerOf = (job: Job, guest: GuestContext): unknown => {
  const answer = JSON.parse(runJob(job, guest).result) as { value?: unknown; error?: string };
  if (answer.error) throw new Error(answer.error);
  return answer.value;
};
const objects = (guest: GuestContext): number => {
  const usage = guest.runtime.computeMemoryUsage();
  const count = (guest.context.dump(usage) as { obj_count: number }).obj_count;
  usage.dispose();
  return count;
};

describe('an evaluation leaves nothing for the cycle collector', () => {
  const guest = guestContextFor();

  it('the context holds as many objects after each of 20 evaluations as after the first', () => {
    const job = jobOf(expr('variables.n + common_data.list.length + this.variables.n'));
    expect(answerOf(job, guest())).toBe(7);
    const first = objects(guest());
    const counts = Array.from({ length: 20 }, () => (answerOf(job, guest()), objects(guest())));
    expect(counts).toEqual(counts.map(() => first));
  });

  it('this.variables is shared by every evaluation, frozen: nothing hung on it carries over', () => {
    const attack = jobOf(
      stmts(
        'var d = Object.getOwnPropertyDescriptor(this, "variables"); d.get.evil = 1; d.set.evil = 2; try { d.get.prototype = {}; } catch (e) {} return [Object.isFrozen(d.get), Object.isFrozen(d.set)];',
      ),
    );
    expect(answerOf(attack, guest())).toEqual([true, true]);
    const probe = jobOf(expr('[typeof Object.getOwnPropertyDescriptor(this, "variables").get.evil, typeof Object.getOwnPropertyDescriptor(this, "variables").set.evil]'));
    expect(answerOf(probe, guest())).toEqual(['undefined', 'undefined']);
    // Setting it sets this evaluation's this.common_data (the free names keep the value they were called with), and only this evaluation's.
    expect(answerOf(jobOf(stmts('this.variables = { n: 40 }; return common_data.n + this.common_data.n + variables.n;')), guest())).toBe(44);
    expect(answerOf(jobOf(expr('this.variables.n')), guest())).toBe(2);
  });
});

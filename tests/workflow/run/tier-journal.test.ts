import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EngineInput } from '../../../src/engine/input-events.js';
import { initialState, step } from '../../../src/engine/step.js';
import { EngineInputSchema } from '../../../src/kinds/schemas.js';
import { compileWorkflow } from '../../../src/workflow/run/compile.js';
import { WorkflowPlanSchema } from '../../../src/workflow/run/plan.js';
import type { WorkflowRun } from '../../../src/workflow/run/state.js';

// Recorded by make-tier-journal.ts with the build before steps ran the host tier themselves: every evaluation that
// runs code went out as an effect, the evaluator's tier answered it, and its result came back as an input of its own.
type Recorded = { status: string; configuration: string[]; workflow: WorkflowRun | null };
const fixture = JSON.parse(readFileSync(new URL('./fixtures/tier-journal.json', import.meta.url), 'utf8')) as Record<string, { plan: unknown; inputs: unknown[]; states: Recorded[] }>;

describe('a journal written before the host tier answered in the step folds the same', () => {
  it.each(Object.keys(fixture))('%s: after every input the engine no longer waits on, the same session (state, data, contexts, ids, loop guard)', (name) => {
    const { plan, inputs, states } = fixture[name]!;
    const def = compileWorkflow(WorkflowPlanSchema.parse(plan));
    let s = initialState(def, { id: 'w' });
    let compared = 0;
    let asked = 0;
    inputs.forEach((raw, i) => {
      const r = step(def, s, EngineInputSchema.parse(raw) as EngineInput);
      s = r.session;
      asked += r.effects.filter((fx) => fx.type === 'evaluate').length;
      const was = states[i]!;
      // Where the run waited for the sandbox, today's step went on within the step that asked: the two meet again
      // once that result came in (it is then ignored). Everywhere else a resume or a fork from here starts the same.
      if (was.workflow?.evaluating) return;
      expect({ status: s.status, configuration: s.configuration, workflow: s.workflow }, `after input ${i + 1} (${(raw as { type: string }).type})`).toEqual(was);
      compared += 1;
    });
    expect(s.status).toBe('ended');
    expect(compared).toBeGreaterThan(inputs.length / 3);
    // Fewer evaluations leave the step than the journal holds results for: the tier answered them within it.
    const stored = inputs.filter((i) => (i as { type: string }).type === 'evaluated').length;
    expect(asked).toBeLessThan(stored);
  });
});

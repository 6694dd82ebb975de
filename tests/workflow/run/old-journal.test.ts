import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../src/engine/event-map.js';
import type { EngineInput } from '../../../src/engine/input-events.js';
import { EngineInputSchema } from '../../../src/kinds/schemas.js';
import { initialState, step } from '../../../src/engine/step.js';
import { compileWorkflow } from '../../../src/workflow/run/compile.js';
import { WorkflowPlanSchema } from '../../../src/workflow/run/plan.js';

// Recorded with the engine and sandbox before the engine decided code-free evaluations itself and chained
// after-code with the transitions: every evaluation then went to the sandbox, one at a time.
const fixture = JSON.parse(readFileSync(new URL('./fixtures/pre-pool-journal.json', import.meta.url), 'utf8')) as {
  plan: unknown;
  inputs: unknown[];
  expected: { status: string; configuration: string[]; workflow: unknown; events: EngineEvent[] };
};

describe('a journal written before evaluations were decided in the host and chained', () => {
  it('folds to the same session: same states, same common_data and contexts, same events, same evaluation ids', () => {
    const def = compileWorkflow(WorkflowPlanSchema.parse(fixture.plan));
    let s = initialState(def, { id: 'w' });
    const events: EngineEvent[] = [];
    for (const raw of fixture.inputs) {
      const r = step(def, s, EngineInputSchema.parse(raw) as EngineInput);
      s = r.session;
      for (const fx of r.effects) if (fx.type === 'emit' && ['transition', 'note', 'error', 'session_ended'].includes(fx.event.type)) events.push(fx.event);
    }
    expect(s.status).toBe(fixture.expected.status);
    expect(s.configuration).toEqual(fixture.expected.configuration);
    // The loop guard's count (`loop`) came after the fixture was recorded.
    const { loop: _loop, ...workflow } = s.workflow!;
    expect(workflow).toEqual(fixture.expected.workflow);
    expect(events).toEqual(fixture.expected.events);
  });

  it('its evaluations, asked for today, are fewer: the ones that need no code are decided without the sandbox', () => {
    const def = compileWorkflow(WorkflowPlanSchema.parse(fixture.plan));
    let s = initialState(def, { id: 'w' });
    const asked: string[] = [];
    for (const raw of fixture.inputs) {
      const r = step(def, s, EngineInputSchema.parse(raw) as EngineInput);
      s = r.session;
      for (const fx of r.effects) if (fx.type === 'evaluate') asked.push(`${fx.id} ${fx.evaluation.state} ${fx.evaluation.purpose}${fx.evaluation.next ? `+${fx.evaluation.next.purpose}` : ''}`);
    }
    const before = (fixture.inputs as { type: string }[]).filter((i) => i.type === 'evaluated').length;
    expect(before).toBe(23);
    expect(asked.length).toBeLessThan(before);
    // The null and constant conditions, the input path and the template never reach the sandbox.
    expect(asked.some((a) => / start transitions$/.test(a))).toBe(false);
    expect(asked.some((a) => / review input$/.test(a))).toBe(false);
  });
});

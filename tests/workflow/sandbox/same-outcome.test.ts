import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../src/engine/event-map.js';
import type { EngineInput } from '../../../src/engine/input-events.js';
import type { AgentCall } from '../../../src/engine/moves.js';
import { initialState, step } from '../../../src/engine/step.js';
import { compileWorkflow } from '../../../src/workflow/run/compile.js';
import { WorkflowPlanSchema } from '../../../src/workflow/run/plan.js';
import { createSandboxEvaluator } from '../../../src/workflow/sandbox/index.js';

// The workflow of the pre-pool journal (every kind of evaluation: handlers, templates, null and constant
// conditions, after-code with transitions, a sub-workflow, a fan-out), run live on today's engine and sandbox.
const fixture = JSON.parse(readFileSync(new URL('../run/fixtures/pre-pool-journal.json', import.meta.url), 'utf8')) as {
  plan: unknown;
  expected: { status: string; workflow: unknown; events: EngineEvent[] };
};
const plan = WorkflowPlanSchema.parse(fixture.plan);
const sandbox = createSandboxEvaluator({ scriptFor: (name) => (name === plan.name ? plan.script : null) });
afterAll(() => sandbox.close());

// The same scripted answers the journal was recorded with.
function replyTo(call: AgentCall, drafts: { n: number }): { text: string; toolCalls: { name: string; arguments: unknown }[] } {
  if (call.persona === 'coder') return { text: `draft ${++drafts.n}`, toolCalls: [] };
  if (call.persona === 'reviewer') return { text: 'looks ok', toolCalls: [{ name: 'review_work', arguments: { ok: drafts.n >= 2, note: `round ${drafts.n}` } }] };
  return { text: `${call.persona} says ${'text' in call.inbox ? call.inbox.text : ''}`, toolCalls: [] };
}

describe('fewer sandbox jobs, the same run', () => {
  // 23 evaluations went to the sandbox before: the code-free ones are now decided in the step; after-code, the
  // transitions and the entry code of the state they choose run as one job (11 jobs); the host tier answers most of
  // those within the step that asks for them (4 left: what it gives up on, and one a step past its first tier run).
  it.each([
    ['with the host tier in the step', true, 4],
    ['with every evaluation that runs code left to the sandbox', false, 11],
  ])('decided in the host and chained (%s), the workflow ends exactly as it did when every evaluation was a job of its own', async (_name, inStep, expectedJobs) => {
    const def = compileWorkflow(plan, {}, { tierInStep: inStep });
    let s = initialState(def, { id: 'w' });
    const events: EngineEvent[] = [];
    const queue: EngineInput[] = [{ type: 'start', brief: 'a parser' }];
    const drafts = { n: 0 };
    let jobs = 0;
    while (queue.length > 0) {
      const r = step(def, s, queue.shift()!);
      s = r.session;
      for (const fx of r.effects) {
        if (fx.type === 'emit' && ['transition', 'note', 'error', 'session_ended'].includes(fx.event.type)) events.push(fx.event);
        if (fx.type === 'evaluate') {
          jobs += 1;
          queue.push({ type: 'evaluated', id: fx.id, result: await sandbox.evaluate(fx.evaluation) });
        }
        if (fx.type === 'call_agent') queue.push({ type: 'agent_replied', turnId: fx.call.turnId, ...replyTo(fx.call, drafts) });
      }
    }
    expect(s.status).toBe(fixture.expected.status);
    // The loop guard's count (`loop`) came after the fixture was recorded.
    const { loop: _loop, ...workflow } = s.workflow!;
    expect(workflow).toEqual(fixture.expected.workflow);
    expect(events).toEqual(fixture.expected.events);
    expect(jobs).toBe(expectedJobs);
  });
});

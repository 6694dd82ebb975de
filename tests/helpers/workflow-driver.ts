import type { Limits } from '../../src/config/team-schema.js';
import type { Effect } from '../../src/engine/effects.js';
import type { EngineEvent } from '../../src/engine/event-map.js';
import type { EngineInput } from '../../src/engine/input-events.js';
import type { SessionState } from '../../src/engine/session.js';
import { initialState, step } from '../../src/engine/step.js';
import { compileWorkflow } from '../../src/workflow/run/compile.js';
import type { WorkflowPlan } from '../../src/workflow/run/plan.js';

/** An effect of one kind. */
type EffectOf<K extends Effect['type']> = Extract<Effect, { type: K }>;

/**
 * Steps a workflow session of `plan` on the pure core, by hand: `send` feeds one input and returns what the
 * step asked for (its effects but the events, which `events` collects); `evaluation()` and `call()` are the
 * last step's sandbox job and agent call, if it asked for one. The tests script the sandbox's answers, so the
 * steps leave every evaluation that runs code to them (`tierInStep`: the host tier answers in the step, as in a session).
 */
export function workflowDriver(plan: WorkflowPlan, limits: Partial<Limits> = {}, { tierInStep = false } = {}) {
  const def = compileWorkflow(plan, limits, { tierInStep });
  let s: SessionState = initialState(def, { id: 'w' });
  const events: EngineEvent[] = [];
  let effects: Effect[] = [];
  const send = (input: EngineInput) => {
    const r = step(def, s, input);
    s = r.session;
    effects = r.effects;
    for (const fx of r.effects) if (fx.type === 'emit') events.push(fx.event);
    return r.effects.filter((fx) => fx.type !== 'emit');
  };
  const find = <K extends Effect['type']>(type: K) => effects.find((fx): fx is EffectOf<K> => fx.type === type);
  return { def, send, events, effects: () => effects, evaluation: () => find('evaluate'), call: () => find('call_agent'), state: () => s };
}

import type { StepContext } from '../../engine/context.js';
import type { Evaluation, EvaluationResult } from '../../engine/evaluation.js';
import { decideInHost, mayDecideInHost, type EvaluationRequest } from '../sandbox/host-decision.js';
import { current, runOf } from './access.js';
import type { Frame } from './state.js';

// Evaluations answered within the step that asks for them: what needs no code (decided here, on the same
// data the sandbox would read), and the evaluation the sandbox ran right after the one before it (its
// `then`). Each still takes its id, so a journal written before either existed folds the same: its results
// for those ids arrive when the engine no longer waits for them, and are ignored.

type Request = Pick<Evaluation, 'code' | 'transitions' | 'fields'>;
/** A result the sandbox gave for the evaluation it expected next, and what it started from. */
interface Chained {
  purpose: Evaluation['purpose'];
  request: string;
  result: EvaluationResult;
  workflow: string;
  depth: number;
  frame: Pick<Frame, 'state' | 'common_data' | 'contexts' | 'input' | 'agents' | 'lastAgent' | 'subWorkflowResult'>;
}

// Answers decided within one step before the next is left to the runtime: a workflow that goes round
// through states with no agent and no code must not recurse without end (the runtime then goes on with it).
const MAX_INLINE = 64;
const chained = new WeakMap<StepContext, Chained>();
const inlined = new WeakMap<StepContext, number>();

/** The result an evaluation gets in this step without the sandbox, or null when the sandbox must run it. */
export function answerInline(ctx: StepContext, purpose: Evaluation['purpose'], what: Request, extra: object): EvaluationResult | null {
  const { run, frame, plan } = current(ctx);
  const ready = chained.get(ctx);
  chained.delete(ctx);
  if (ready && ready.purpose === purpose && ready.request === requestKey(what) && ready.workflow === plan.name && ready.depth === run.frames.length && sameData(ready.frame, frame) && Object.keys(extra).length === 0) return ready.result;
  const count = inlined.get(ctx) ?? 0;
  if (count >= MAX_INLINE || Object.keys(extra).length > 0) return null;
  const decided = decideInHost({ purpose, ...what }, { common_data: frame.common_data, input: frame.input, last_agent_response: lastResponse(frame), sub_workflow_result: frame.subWorkflowResult });
  if (decided) inlined.set(ctx, count + 1);
  return decided;
}

/** Keeps the result of the chained evaluation for the evaluation the engine asks for next in this step. */
export function keepChained(ctx: StepContext, purpose: Evaluation['purpose'], request: Request, result: EvaluationResult): void {
  const { run, frame, plan } = current(ctx);
  const { state, common_data, contexts, input, agents, lastAgent, subWorkflowResult } = frame;
  chained.set(ctx, { purpose, request: requestKey(request), result, workflow: plan.name, depth: run.frames.length, frame: { state, common_data, contexts, input, agents, lastAgent, subWorkflowResult } });
}

/** The evaluation to run in the same job after this one, when the sandbox would be asked for it next (null: none, or the host decides it). */
export function chainable(then: EvaluationRequest | null): EvaluationRequest | undefined {
  return then && !mayDecideInHost(then) ? then : undefined;
}

/** A new id for an evaluation answered inline (ids stay the same as when every evaluation went to the sandbox). */
export function takeId(ctx: StepContext): string {
  const run = runOf(ctx);
  ctx.s.workflow = { ...run, evalSeq: run.evalSeq + 1 };
  return `e${run.evalSeq + 1}`;
}

function requestKey(what: Request): string {
  return JSON.stringify([what.code, what.transitions, what.fields]);
}

// The chained result was computed from this data: the frame must still hold the very same (the engine replaces, never changes, what it holds).
function sameData(then: Chained['frame'], now: Frame): boolean {
  return then.state === now.state && then.common_data === now.common_data && then.contexts === now.contexts && then.input === now.input
    && then.agents === now.agents && then.lastAgent === now.lastAgent && then.subWorkflowResult === now.subWorkflowResult;
}

function lastResponse(frame: Frame): string | null {
  return frame.lastAgent ? (frame.agents[frame.lastAgent]?.response ?? null) : null;
}

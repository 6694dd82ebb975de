import type { StepContext } from '../../engine/context.js';
import type { ChainStep, Evaluation, EvaluationResult } from '../../engine/evaluation.js';
import { decideInHost } from '../sandbox/host-decision.js';
import { DEFAULT_LIMITS } from '../sandbox/program.js';
import { runInTier } from '../sandbox/tier/run.js';
import { current, runOf } from './access.js';
import { workflowInputOf } from './frames.js';
import type { Chain } from './chain.js';
import type { Frame } from './state.js';
import { commonDataBytes, commonDataProblem } from './data-size.js';
import { sizeChecked } from './loop-guard.js';

// Evaluations answered within the step that asks for them: what needs no code (decided here, on the same
// data the sandbox would read), what the sandbox already ran in the job of the evaluation before (its
// `next`), and what the host tier answers (code it interprets, with the sandbox's result, and what is chained
// after it: a state's after-code, transitions and the next state's entry code settle in the step that took the
// agent's answer). Each still takes its id, so a journal written before any of them existed folds the same: its
// results for those ids arrive when the engine no longer waits for them, and are ignored.

type Request = Pick<Evaluation, 'code' | 'transitions' | 'fields'>;
type Data = Pick<Frame, 'state' | 'common_data' | 'contexts' | 'input' | 'agents' | 'lastAgent' | 'subWorkflowResult'>;
/** A result the sandbox gave for an evaluation it expected to be asked for next, and the data it started from. */
interface Chained {
  step: ChainStep;
  result: EvaluationResult;
  workflow: string;
  depth: number;
  frame: Data;
}

// Answers decided within one step before the next is left to the runtime: a workflow that goes round
// through states with no agent and no code must not recurse without end (the runtime then goes on with it).
const MAX_INLINE = 64;
const chained = new WeakMap<StepContext, Chained>();
const inlined = new WeakMap<StepContext, number>();
// Steps that ran the host tier on code once already: the next such evaluation goes to the runtime as an effect,
// so a step holds the thread for at most one tier evaluation (and what it chains), as an evaluation effect did.
const tiered = new WeakSet<StepContext>();
// The tier's limits in the step: the sandbox's defaults (a session's evaluator runs with them).
const TIER_LIMITS = { maxLogLines: DEFAULT_LIMITS.maxLogLines, maxResultBytes: DEFAULT_LIMITS.maxResultBytes };

/**
 * The result an evaluation gets in this step without the runtime (and what may follow it), or null when the
 * evaluator must run it: `evaluation` builds what the sandbox would be given (built once, by the caller).
 */
export function answerInline(ctx: StepContext, purpose: Evaluation['purpose'], what: Request, extra: object, evaluation: () => Evaluation): { result: EvaluationResult; chain: Chain | null } | null {
  const { run, frame, plan } = current(ctx);
  const ready = chained.get(ctx);
  chained.delete(ctx);
  const plain = Object.keys(extra).length === 0;
  if (ready && plain && ready.step.purpose === purpose && sameRequest(ready.step, what) && ready.workflow === plan.name && ready.depth === run.frames.length && sameData(ready.frame, frame)) {
    // Counted for the loop guard with the answer it came in; its common_data is capped like any other.
    const problem = ready.result.ok ? commonDataProblem(commonDataBytes(ready.result.common_data)) : null;
    return { result: problem ? { ok: false, error: problem } : ready.result, chain: ready.step };
  }
  const count = inlined.get(ctx) ?? 0;
  if (count >= MAX_INLINE || !plain) return null;
  const result = decideInHost(
    { purpose, ...what },
    { common_data: frame.common_data, input: frame.input, last_agent_response: lastResponse(frame), sub_workflow_result: frame.subWorkflowResult, workflow_input: workflowInputOf(frame, plan) },
  );
  if (result) {
    inlined.set(ctx, count + 1);
    return { result, chain: null };
  }
  // The definition says whether its steps run the tier (compileWorkflow's tierInStep; a session's journal folds as it was
  // written), at most once a step; what it answers is counted for the loop guard and size-checked as the evaluator's would be.
  if (ctx.def.tierInStep === false || tiered.has(ctx)) return null;
  tiered.add(ctx);
  const asked = evaluation();
  const tier = runInTier(asked, plan.script, TIER_LIMITS);
  if (!tier) return null;
  inlined.set(ctx, count + 1);
  return { result: sizeChecked(ctx, tier), chain: asked };
}

/**
 * Keeps the result the sandbox gave for the step after the one just settled, for the evaluation the engine
 * asks for next in this step; `into`: the step runs in the state the settled one chose (entered afresh, its
 * input not yet set).
 */
export function keepChained(ctx: StepContext, step: ChainStep, result: EvaluationResult, into?: string): void {
  const { run, frame, plan } = current(ctx);
  const entered = into !== undefined;
  const data: Data = {
    state: entered ? into : frame.state,
    common_data: frame.common_data,
    contexts: frame.contexts,
    input: entered ? null : frame.input,
    agents: frame.agents,
    lastAgent: frame.lastAgent,
    subWorkflowResult: frame.subWorkflowResult,
  };
  chained.set(ctx, { step, result, workflow: plan.name, depth: run.frames.length, frame: data });
}

/** A new id for an evaluation answered inline (ids stay the same as when every evaluation went to the sandbox). */
export function takeId(ctx: StepContext): string {
  const run = runOf(ctx);
  ctx.s.workflow = { ...run, evalSeq: run.evalSeq + 1 };
  return `e${run.evalSeq + 1}`;
}

// Whether a chained result answers the request: the very same code, transitions and fields (the plan's objects, which
// the chain and the request share), else the same as JSON (a chain read back from a journal or a snapshot).
function sameRequest(step: Request, what: Request): boolean {
  if (step.code === what.code && step.transitions === what.transitions && step.fields === what.fields) return true;
  return requestKey(step) === requestKey(what);
}

// Which request a chained result answers: its code, transitions and fields as JSON (plan objects, shared by every
// request that asks for them: written out once each). JSON text holds no NUL, so the joined key tells them apart.
function requestKey(what: Request): string {
  return `${jsonOnce(what.code)}\u0000${jsonOnce(what.transitions)}\u0000${jsonOnce(what.fields)}`;
}

const written = new WeakMap<object, string>();
function jsonOnce(part: object | null | undefined): string {
  if (part === undefined || part === null) return String(part);
  let json = written.get(part);
  if (json === undefined) {
    json = JSON.stringify(part);
    written.set(part, json);
  }
  return json;
}

// The chained result was computed from this data: the frame must still hold the very same (the engine replaces, never changes, what it holds).
function sameData(was: Data, now: Frame): boolean {
  return (
    was.state === now.state &&
    was.common_data === now.common_data &&
    was.contexts === now.contexts &&
    was.input === now.input &&
    was.agents === now.agents &&
    was.lastAgent === now.lastAgent &&
    was.subWorkflowResult === now.subWorkflowResult
  );
}

function lastResponse(frame: Frame): string | null {
  return frame.lastAgent ? (frame.agents[frame.lastAgent]?.response ?? null) : null;
}

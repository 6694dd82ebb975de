import type { ChainStep } from '../../engine/evaluation.js';
import { mayDecideInHost, type EvaluationRequest } from '../sandbox/host-decision.js';
import { WHEN } from './fanout.js';
import { stateOf } from './frames.js';
import type { StatePlan, WorkflowPlan } from './plan.js';

// Which evaluations follow one another between two agent turns, so the sandbox can run them as one job:
// after-code, the transitions (or transition handler), then the entry code and input of the state they
// choose. Only what needs code is chained; the engine decides the rest itself.

/** What may be run after an evaluation in the same job: next whatever it gives, or next in the state it chooses. */
export type Chain = Pick<ChainStep, 'next' | 'targets'>;

// A state's requests and chains depend on its plan alone: built once per state, shared by every evaluation
// that asks for them (they are read, never changed).
const memos = new WeakMap<StatePlan, Map<string, unknown>>();
// The builder and its arguments are passed, not an arrow made at each call (several a state); building is out of line.
function once<T>(state: StatePlan, what: string, build: (state: StatePlan, plan: WorkflowPlan | undefined) => T, plan?: WorkflowPlan): T {
  const memo = memos.get(state);
  if (memo?.has(what)) return memo.get(what) as T;
  return remember(state, what, build(state, plan));
}

function remember<T>(state: StatePlan, what: string, value: T): T {
  let memo = memos.get(state);
  if (!memo) {
    memo = new Map();
    memos.set(state, memo);
  }
  memo.set(what, value);
  return value;
}

/** What the input phase of a state evaluates (a branch's inputs, the debate's subject, a sub-workflow's inputs, the agent's input), if anything. */
export function inputRequest(state: StatePlan): EvaluationRequest | null {
  return once(state, 'input', buildInputRequest);
}

function buildInputRequest(state: StatePlan): EvaluationRequest | null {
  if (state.parallel) {
    const fields = Object.fromEntries(state.parallel.branches.flatMap((b) => [...(b.input ? [[b.id, b.input]] : []), ...(b.when ? [[`${WHEN}${b.id}`, b.when]] : [])]));
    return Object.keys(fields).length > 0 ? { purpose: 'branch_input', fields } : null;
  }
  if (state.debate) return state.debate.input ? { purpose: 'debate_input', code: state.debate.input } : null;
  if (state.subWorkflow) return Object.keys(state.subWorkflow.input).length > 0 ? { purpose: 'sub_input', fields: state.subWorkflow.input } : null;
  return state.agent && state.input ? { purpose: 'input', code: state.input } : null;
}

/** What choosing a state's next state evaluates: its transition handler, or its transitions (null: the state is final). */
export function decisionRequest(state: StatePlan): EvaluationRequest | null {
  return once(state, 'decision', buildDecisionRequest);
}

function buildDecisionRequest(state: StatePlan): EvaluationRequest | null {
  if (state.final || (state.transitions.length === 0 && !state.decide)) return null;
  if (state.decide) return { purpose: 'decide', code: state.decide };
  return { purpose: 'transitions', transitions: state.transitions };
}

/** After a state's entry code: its input, when that needs code. */
export function afterEnter(state: StatePlan): Chain | undefined {
  return once(state, 'afterEnter', buildAfterEnter);
}

function buildAfterEnter(state: StatePlan): Chain | undefined {
  const input = needingCode(inputRequest(state));
  return input ? { next: input } : undefined;
}

/** After a state's after-code: its decision, and what the state it chooses asks for first, when any of it needs code. */
export function afterAfter(plan: WorkflowPlan, state: StatePlan): Chain | undefined {
  return once(state, 'afterAfter', buildAfterAfter, plan);
}

function buildAfterAfter(state: StatePlan, plan: WorkflowPlan | undefined): Chain | undefined {
  const decision = decisionRequest(state);
  if (!decision) return undefined;
  const targets = targetsOf(plan!, decision);
  if (!targets && mayDecideInHost(decision)) return undefined;
  return { next: { ...decision, ...(targets ? { targets } : {}) } };
}

/** After a decision: per state it may choose, that state's entry code (and input), when they need code. */
export function targetsOf(plan: WorkflowPlan, decision: EvaluationRequest): Record<string, ChainStep> | undefined {
  let memo = targetMemos.get(plan);
  if (!memo) {
    memo = new WeakMap();
    targetMemos.set(plan, memo);
  }
  if (!memo.has(decision)) memo.set(decision, buildTargets(plan, decision));
  return memo.get(decision);
}

const targetMemos = new WeakMap<WorkflowPlan, WeakMap<EvaluationRequest, Record<string, ChainStep> | undefined>>();

function buildTargets(plan: WorkflowPlan, decision: EvaluationRequest): Record<string, ChainStep> | undefined {
  const names = decision.transitions ? decision.transitions.map((t) => t.target) : plan.states.map((s) => s.name);
  const out: Record<string, ChainStep> = {};
  for (const name of new Set(names)) {
    const target = name === undefined ? undefined : stateOf(plan, name);
    const first = target && entryOf(target);
    if (first) out[name!] = first;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

// What a state entered asks for first: its entry code (then its input), or its input.
function entryOf(state: StatePlan): ChainStep | undefined {
  const input = needingCode(inputRequest(state));
  if (!state.enter || mayDecideInHost({ purpose: 'enter', code: state.enter })) return input;
  return { purpose: 'enter', code: state.enter, ...(input ? { next: input } : {}) };
}

function needingCode(request: EvaluationRequest | null): ChainStep | undefined {
  return request && !mayDecideInHost(request) ? request : undefined;
}

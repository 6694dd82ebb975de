import { keyOf, planOf, stateOf } from '../workflow/run/frames.js';
import type { StatePlan, WorkflowPlan } from '../workflow/run/plan.js';
import { OWN_WEIGHT, PREDICTIONS, type PredictInput, type Prediction } from './predict.js';

// States passed through without an agent call before giving up on finding the next one.
const MAX_HOPS = 32;

/** What may come after a state: a state whose agent is called (its key and agent), or anything else (an end, a sub-workflow, branches, a debate). */
type Outcome = { key: string; agent: string | null };

/** True when entering the state calls one agent (not add / clear, not branches or a debate, not a sub-workflow). */
function callsOneAgent(state: StatePlan): boolean {
  return state.agent !== null && state.action === 'send' && !state.parallel && !state.debate && !state.subWorkflow;
}

/** The states a state's transitions may go to (a transition handler may name any state). */
function targetsOf(plan: WorkflowPlan, state: StatePlan): string[] {
  return state.decide ? plan.states.map((s) => s.name) : state.transitions.map((t) => t.target);
}

/**
 * What may come after `from` once its conditions are decided: each state it may go to, followed through
 * states that call no agent (code only, add / clear) to the agent states they lead to. Ends, sub-workflows,
 * branches and debates are outcomes with no agent to warm.
 */
export function outcomesAfter(plan: WorkflowPlan, frame: { prefix: string[] }, from: string): Outcome[] {
  const out = new Map<string, Outcome>();
  const seen = new Set<string>();
  const start = stateOf(plan, from);
  let queue = start ? targetsOf(plan, start) : [];
  for (let hops = 0; queue.length > 0 && hops < MAX_HOPS; hops++) {
    const next: string[] = [];
    for (const name of queue) {
      if (seen.has(name)) continue;
      seen.add(name);
      const state = stateOf(plan, name);
      const key = keyOf(frame, name);
      if (!state || state.final || state.parallel || state.debate || state.subWorkflow) out.set(key, { key, agent: state && callsOneAgent(state) ? state.agent : null });
      else if (callsOneAgent(state)) out.set(key, { key, agent: state.agent });
      else next.push(...targetsOf(plan, state));
    }
    queue = next;
  }
  return [...out.values()];
}

/**
 * Who a workflow calls after the agent answering now: the agent states reachable from its state, each
 * weighted by how often its state followed this one (this run's counts OWN_WEIGHT times the learned ones),
 * smoothed by one count per outcome so that with no history every outcome is equally likely. `history` is
 * the share in the counts alone, `dependency` the share of the reachable outcomes that are this agent's
 * states, `context` 0 (a workflow's conditions decide, not the words). Pure; the top PREDICTIONS, best first.
 */
export function predictWorkflowNext(input: PredictInput): Prediction[] {
  const { def, state, call } = input;
  const root = def.workflow;
  const frame = state.workflow?.frames.at(-1);
  if (!root || !frame || call.branch !== undefined || frame.phase === 'debate') return [];
  const outcomes = outcomesAfter(planOf(root, frame), frame, frame.state);
  const from = call.path;
  const weight = (to: string) => OWN_WEIGHT * input.own.count(from, to) + (input.learned?.count(from, to) ?? 0);
  const total = outcomes.reduce((n, o) => n + weight(o.key), 0);
  const byAgent = new Map<string, Prediction>();
  for (const o of outcomes) {
    if (!o.agent || !def.agentIndex.has(o.agent)) continue;
    const p = byAgent.get(o.agent) ?? { persona: o.agent, confidence: 0, history: 0, context: 0, dependency: 0 };
    p.confidence += (weight(o.key) + 1) / (total + outcomes.length);
    p.history += total > 0 ? weight(o.key) / total : 0;
    p.dependency += 1 / outcomes.length;
    byAgent.set(o.agent, p);
  }
  // A stable sort keeps the transition table's order among equals.
  return [...byAgent.values()].sort((x, y) => y.confidence - x.confidence).slice(0, PREDICTIONS);
}

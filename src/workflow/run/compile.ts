import { buildChart } from '../../engine/chart/chart.js';
import type { StateSpec } from '../../engine/chart/node.js';
import type { AgentState, MachineDefinition } from '../../engine/definition.js';
import type { Limits } from '../../config/team-schema.js';
import type { AgentPlan, StatePlan, WorkflowPlan } from './plan.js';
import { MAX_DEPTH, SUB_DONE } from './constants.js';
import { workflowPolicy } from './policy.js';
import { BRANCH_DONE, BRANCH_WORK } from './fanout.js';

/** Turns a workflow can take before the session pauses for the user (a safety net; the workflow's own loops have their limits). */
export const WORKFLOW_MAX_TURNS = 100;

function stateSpec(plan: WorkflowPlan, state: StatePlan, depth: number): StateSpec {
  if (state.subWorkflow) {
    const child = plan.subWorkflows[state.subWorkflow.name];
    if (!child || depth >= MAX_DEPTH) return { id: state.name, kind: 'atomic', meta: { name: state.name } };
    // A sub-workflow is a compound state: its states inside, and a final state it ends in.
    return {
      id: state.name,
      kind: 'compound',
      initial: child.start,
      meta: { name: state.name, workflow: child.name },
      children: [...child.states.map((s) => stateSpec(child, s, depth + 1)), { id: SUB_DONE, kind: 'final' }],
    };
  }
  if (state.parallel) {
    // Each branch is a region of its own: its working state, then a final state once it is done.
    return {
      id: state.name,
      kind: 'parallel',
      meta: { name: state.name },
      children: state.parallel.branches.map(
        (b): StateSpec => ({
          id: b.id,
          kind: 'compound',
          meta: { name: b.id },
          children: [
            { id: BRANCH_WORK, kind: 'atomic', invoke: { agent: b.agent }, meta: { name: `${state.name}.${b.id}` } },
            { id: BRANCH_DONE, kind: 'final' },
          ],
        }),
      ),
    };
  }
  const final = state.final && !state.agent && !state.debate;
  return {
    id: state.name,
    kind: final ? 'final' : 'atomic',
    ...(state.agent ? { invoke: { agent: state.agent } } : {}),
    meta: { name: state.name },
  };
}

function agentsOf(plan: WorkflowPlan, seen: Map<string, AgentPlan>): Map<string, AgentPlan> {
  for (const a of plan.agents) if (!seen.has(a.id)) seen.set(a.id, a);
  for (const child of Object.values(plan.subWorkflows)) agentsOf(child, seen);
  return seen;
}

/** How a compiled workflow runs: `tierInStep` false leaves every evaluation that runs code to the evaluator (default: the steps run the host tier). */
export interface WorkflowRunOptions {
  tierInStep?: boolean;
}

/** Compiles a workflow plan onto the statechart: one state per workflow state, sub-workflows as compound states. */
export function compileWorkflow(plan: WorkflowPlan, limits: Partial<Limits> = {}, options: WorkflowRunOptions = {}): MachineDefinition {
  const chart = buildChart({ id: plan.name, kind: 'compound', initial: plan.start, children: plan.states.map((s) => stateSpec(plan, s, 1)) });
  const agents: AgentState[] = [...agentsOf(plan, new Map()).values()].map((a) => ({
    id: a.id,
    name: a.name,
    path: '',
    statePath: [],
    major: '',
    model: a.model,
    description: a.systemMessage.split('\n')[0] ?? '',
    allowed: null,
  }));
  return {
    name: plan.name,
    kind: 'workflow',
    chart,
    agents,
    agentIndex: new Map(agents.map((a) => [a.id, a])),
    userPath: '',
    initial: '',
    entry: plan.start,
    workflow: plan,
    tierInStep: options.tierInStep !== false,
    policy: workflowPolicy,
    limits: { max_turns: plan.maxTurns ?? WORKFLOW_MAX_TURNS, max_reworks_per_pair: 0, ping_pong: 2, max_tokens: null, max_cost: null, ...limits },
  };
}

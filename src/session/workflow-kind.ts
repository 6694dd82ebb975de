import type { OpenTeam } from '../team/open-team.js';
import type { SandboxEvaluator } from '../workflow/sandbox/index.js';
import { compileWorkflow } from '../workflow/run/compile.js';
import { workflowModels } from '../workflow/run/models.js';
import type { WorkflowPlan } from '../workflow/run/plan.js';
import { workflowTurns } from '../workflow/run/turns.js';
import { tierVariables, type SessionKind, type Tiers } from './session-kind.js';

// A module of its own, loaded only for workflow sessions: a team session never loads the workflow compiler.

/** A sandbox for a workflow's code on the process's shared pool of sandbox threads, finding each (sub-)workflow's script.js in its plan. */
async function workflowSandbox(plan: WorkflowPlan): Promise<SandboxEvaluator> {
  const { createSandboxEvaluator, sharedSandboxPool } = await import('../workflow/sandbox/index.js');
  const { plansByName } = await import('../workflow/load/load-workflow.js');
  const plans = plansByName(plan);
  return createSandboxEvaluator({ pool: sharedSandboxPool(), scriptFor: (name) => plans.get(name)?.script ?? null, hostTier: true });
}

/** A workflow session: its plan compiled onto the chart; its roles' models through the team's tier table; code in the sandbox. */
export function workflowKind(plan: WorkflowPlan, team: OpenTeam, options: { maxTurns?: number; tiers?: Tiers; env?: Record<string, string | undefined>; tierInStep?: boolean } = {}): SessionKind {
  const def = compileWorkflow(plan, options.maxTurns !== undefined ? { max_turns: options.maxTurns } : {}, { tierInStep: options.tierInStep !== false });
  const env = { ...(options.env ?? process.env), ...tierVariables(options.tiers) };
  return {
    def,
    modelFor: workflowModels(plan, team, env),
    prompted: false,
    turns: () => workflowTurns(def),
    ...(plan.workspace ? { workspace: { from: plan.workspace.from, git: plan.workspace.git } } : {}),
    openEvaluator: () => workflowSandbox(plan),
  };
}

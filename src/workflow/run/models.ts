import { resolveModelId } from '../../llm/model-resolver.js';
import type { OpenTeam } from '../../team/open-team.js';
import type { AgentPlan, WorkflowPlan } from './plan.js';

function collect(plan: WorkflowPlan, into: Map<string, AgentPlan>): Map<string, AgentPlan> {
  for (const a of plan.agents) if (!into.has(a.id)) into.set(a.id, a);
  for (const child of Object.values(plan.subWorkflows)) collect(child, into);
  return into;
}

/** The model id of each workflow agent: its role's tier (or model id) through the team's tier table and the environment. */
export function workflowModels(plan: WorkflowPlan, team: OpenTeam, env: Record<string, string | undefined>): (agent: string) => string {
  const agents = collect(plan, new Map());
  // Asked at every call (its agent_started and its request): resolved once per agent, as nothing it reads changes.
  const resolved = new Map<string, string>();
  return (id) => {
    let model = resolved.get(id);
    if (model === undefined) {
      model = resolveModelId(agents.get(id)?.model ?? 'base', team.loaded.team.models, env);
      resolved.set(id, model);
    }
    return model;
  };
}

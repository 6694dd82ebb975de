import type { AgentPlan, WorkflowPlan } from '../workflow/run/plan.js';

/** One grant a stored plan gives beyond the plan loaded now: where (a field path) and what each gives. */
export interface WidenedGrant {
  field: string;
  stored: string;
  current: string;
}

type CommandPolicy = AgentPlan['commandPolicy'];

const shown = (value: unknown): string => JSON.stringify(value ?? null);

// deny gives nothing; `ask` runs any program the user approves; an allow-list runs its programs unasked (by exact
// name: src/tools/command-policy.ts), with the network only when it says so. Neither of the last two holds the other.
function policyWithin(stored: CommandPolicy, current: CommandPolicy): boolean {
  const s = stored ?? 'deny';
  const c = current ?? 'deny';
  if (s === 'deny') return true;
  if (s === 'ask') return c === 'ask';
  if (typeof c !== 'object') return false;
  return s.allow.every((program) => c.allow.includes(program)) && (s.network !== true || c.network === true);
}

/** What the stored agent may do that the current one may not: its tools, asking the user, its tool steps, its command policy. */
function agentWidened(stored: AgentPlan, current: AgentPlan, at: string): WidenedGrant | null {
  const extra = stored.tools.filter((t) => !current.tools.includes(t));
  if (extra.length > 0) return { field: `${at}.tools`, stored: shown(stored.tools), current: shown(current.tools) };
  if (stored.requestUserInput && !current.requestUserInput) return { field: `${at}.requestUserInput`, stored: 'true', current: 'false' };
  if (stored.maxToolSteps > current.maxToolSteps) return { field: `${at}.maxToolSteps`, stored: String(stored.maxToolSteps), current: String(current.maxToolSteps) };
  if (!policyWithin(stored.commandPolicy, current.commandPolicy))
    return { field: `${at}.commandPolicy`, stored: shown(stored.commandPolicy ?? 'deny'), current: shown(current.commandPolicy ?? 'deny') };
  return null;
}

/**
 * The first grant of a stored workflow plan (its agents' tools, tool steps and command policies, through its
 * sub-workflows) beyond what the plan loaded now from the same file gives, or null when the stored plan gives no
 * more. Prompts, code, states and models may differ: they run in the sandbox or on the model, not on the host.
 */
export function widenedGrant(stored: WorkflowPlan, current: WorkflowPlan, at = 'workflow.plan'): WidenedGrant | null {
  for (const agent of stored.agents) {
    const field = `${at}.agents.${agent.id}`;
    const now = current.agents.find((a) => a.id === agent.id);
    if (!now) return { field, stored: 'an agent', current: 'no such agent' };
    const widened = agentWidened(agent, now, field);
    if (widened) return widened;
  }
  for (const [name, sub] of Object.entries(stored.subWorkflows)) {
    const field = `${at}.subWorkflows.${name}`;
    const now = current.subWorkflows[name];
    if (!now) return { field, stored: 'a sub-workflow', current: 'no such sub-workflow' };
    const widened = widenedGrant(sub, now, field);
    if (widened) return widened;
  }
  return null;
}

/** An agent of a workflow plan whose commands may reach the network: where (its agent id, through sub-workflows) and the workflow's file. */
export interface NetworkGrant {
  agent: string;
  source: string;
}

/** The first agent of a plan (through its sub-workflows) whose command policy turns the network on, or null when none does. */
export function networkGrant(plan: WorkflowPlan, at = ''): NetworkGrant | null {
  for (const agent of plan.agents) {
    const policy = agent.commandPolicy;
    if (typeof policy === 'object' && policy.network === true) return { agent: `${at}${agent.id}`, source: plan.source };
  }
  for (const [name, sub] of Object.entries(plan.subWorkflows)) {
    const found = networkGrant(sub, `${at}${name}/`);
    if (found) return found;
  }
  return null;
}

/** The one line refusing a workflow whose agent turns the network on without the user's consent. */
export function networkRefused(grant: NetworkGrant): string {
  return `${grant.source}: agent ${grant.agent}: command_policy "network": true lets its commands reach the internet and this machine's local services — run with --allow-network to let it, or remove "network": true`;
}

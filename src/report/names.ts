import { ancestorsOf, nodeByKey, topLevelOf } from '../engine/chart/chart.js';
import type { MachineDefinition } from '../engine/definition.js';
import { MEMORY_KEY } from '../usage/usage-meter.js';

/** Display name for an agent id ("You" for the user; the id itself when the definition does not know it). */
export function displayName(def: MachineDefinition, id: string): string {
  if (id === 'user') return 'You';
  return def.agentIndex.get(id)?.name ?? id;
}

/** Who a line of the usage is for: a persona by display name, the memory's own calls (MEMORY_KEY) as memory summaries. */
export function payerName(def: MachineDefinition, key: string): string {
  return key === MEMORY_KEY ? 'memory summaries' : displayName(def, key);
}

/** Renders a state key as `MAJOR › Display Name` (or the stored key when the definition does not know it). */
export function formatPath(def: MachineDefinition, key: string): string {
  if (def.kind === 'workflow') return workflowPath(def, key);
  if (key === def.userPath) {
    const user = nodeByKey(def.chart, key);
    return user ? `${topLevelOf(user).id} › You` : 'You';
  }
  const node = nodeByKey(def.chart, key);
  if (!node) return key;
  const agent = node.invoke ? def.agentIndex.get(node.invoke.agent) : undefined;
  const label = agent?.name ?? node.meta.name ?? node.id;
  const top = topLevelOf(node);
  return top === node ? label : `${top.id} › ${label}`;
}

/** The agent id a state key invokes, if any. */
export function agentAt(def: MachineDefinition, key: string): string | undefined {
  return nodeByKey(def.chart, key)?.invoke?.agent;
}

/** A workflow state as `sub_workflow_state › state · Agent` (the state names the step; the agent who does it). */
function workflowPath(def: MachineDefinition, key: string): string {
  if (key === '') return 'input';
  const node = nodeByKey(def.chart, key);
  if (!node) return key;
  const agent = node.invoke ? def.agentIndex.get(node.invoke.agent) : undefined;
  // A branch's working leaf is the branch itself; the final state a sub-workflow ends in is its end.
  const names = [...ancestorsOf(node), node].filter((n) => n.id !== 'work').map((n) => (n.id === '__done' ? 'end' : n.id));
  return agent ? `${names.join(' › ')} · ${agent.name}` : names.join(' › ');
}

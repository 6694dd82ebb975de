import type { MachineDefinition } from '../engine/definition.js';
import type { WorkflowPlan } from '../workflow/run/plan.js';

/** A node of a definition's graph; its id is the state key the session's configuration names (a node is active when the configuration holds its id or a key under it). */
export interface GraphNode {
  id: string;
  label: string;
  /** A second line: the agent of a workflow state, "lead" for a major's lead. */
  detail?: string;
  /** The group (major, parallel state, sub-workflow) it is drawn in. */
  group?: string;
  kind: 'persona' | 'user' | 'state' | 'branch';
  /** The persona whose turn it runs. */
  persona?: string;
}

/** A box around nodes: a major of a team, the branches of a parallel state, a sub-workflow's states. */
export interface GraphGroup {
  id: string;
  label: string;
  parent?: string;
  /** The state whose branches or sub-workflow it holds (drawn beside it: that state is a node of its own). */
  state?: string;
}

/** A possible move: a handoff a persona may make, a workflow transition (with its condition). */
export interface GraphEdge {
  from: string;
  to: string;
  label?: string;
}

/** A definition as a graph: what `troupe graph` draws as Mermaid, as data for the console to lay out. */
export interface GraphModel {
  kind: 'team' | 'workflow';
  title: string;
  initial: string;
  nodes: GraphNode[];
  groups: GraphGroup[];
  edges: GraphEdge[];
  /** The display name of each of its agents, by id (the console names personas by it, as the transcript does). */
  names: Record<string, string>;
}

const MAX_LABEL = 60;
const short = (text: string) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > MAX_LABEL ? `${one.slice(0, MAX_LABEL - 1)}…` : one;
};

/** Each agent's display name, by id. */
const agentNames = (def: MachineDefinition): Record<string, string> => Object.fromEntries(def.agents.map((a) => [a.id, a.name]));

/** The team as a graph: majors as groups, personas (and the user) as nodes, every allowed handoff as an edge. */
function teamGraph(def: MachineDefinition): GraphModel {
  const nodes: GraphNode[] = [];
  const groups: GraphGroup[] = [];
  for (const major of def.team?.majors ?? []) {
    groups.push({ id: major.id, label: major.id });
    if (major.kind === 'user' && def.team) nodes.push({ id: def.userPath, label: 'You', group: major.id, kind: 'user' });
    for (const id of major.children) {
      const a = def.agentIndex.get(id);
      if (a) nodes.push({ id: a.path, label: a.name, group: major.id, kind: 'persona', persona: a.id, ...(major.lead === id ? { detail: 'lead' } : {}) });
    }
  }
  const edges: GraphEdge[] = [];
  for (const a of def.agents) {
    // As in toMermaid: every allowed target but itself.
    const targets = (a.allowed ? [...a.allowed] : def.agents.map((x) => x.id)).filter((x) => x !== a.id);
    for (const t of targets) {
      const to = def.agentIndex.get(t);
      if (to) edges.push({ from: a.path, to: to.path });
    }
  }
  return { kind: 'team', title: def.name, initial: def.userPath, nodes, groups, edges, names: agentNames(def) };
}

/** A workflow plan's states (and its sub-workflows', its parallel states' branches), under `prefix`. */
function planGraph(plan: WorkflowPlan, prefix: string, group: string | undefined, out: GraphModel, depth: number): void {
  const key = (name: string) => (prefix ? `${prefix}.${name}` : name);
  const names = new Set(plan.states.map((s) => s.name));
  for (const s of plan.states) {
    const id = key(s.name);
    const detail =
      s.agent ?? (s.debate ? `debate: ${s.debate.reviewers.join(', ')}` : s.subWorkflow ? `runs ${s.subWorkflow.name}` : s.parallel ? `${s.parallel.branches.length} branches` : undefined);
    out.nodes.push({ id, label: s.name, kind: 'state', ...(detail ? { detail: short(detail) } : {}), ...(group ? { group } : {}), ...(s.agent ? { persona: s.agent } : {}) });
    if (s.parallel) {
      const box = `${id}#branches`;
      out.groups.push({
        id: box,
        label: `${s.name}: branches, join ${typeof s.parallel.join === 'string' ? s.parallel.join : `quorum ${s.parallel.join.quorum}`}`,
        state: id,
        ...(group ? { parent: group } : {}),
      });
      for (const b of s.parallel.branches) out.nodes.push({ id: `${id}.${b.id}`, label: b.id, detail: b.agent, group: box, kind: 'branch', persona: b.agent });
    }
    const sub = s.subWorkflow ? plan.subWorkflows[s.subWorkflow.name] : undefined;
    if (sub && depth < 4) {
      const box = `${id}#${sub.name}`;
      out.groups.push({ id: box, label: `${s.name} runs ${sub.name}`, state: id, ...(group ? { parent: group } : {}) });
      planGraph(sub, id, box, out, depth + 1);
    }
    for (const t of s.transitions)
      if (names.has(t.target)) out.edges.push({ from: id, to: key(t.target), ...(t.condition ? { label: short(t.condition.kind === 'handler' ? `${t.condition.name}()` : t.condition.source) } : {}) });
  }
}

/** A definition as a graph (pure): the team's majors and personas with their handoffs, or a workflow's states, branches and sub-workflows with their transitions. */
export function graphModel(def: MachineDefinition): GraphModel {
  if (!def.workflow) return teamGraph(def);
  const out: GraphModel = { kind: 'workflow', title: def.workflow.name, initial: def.workflow.start, nodes: [], groups: [], edges: [], names: agentNames(def) };
  planGraph(def.workflow, '', undefined, out, 0);
  return out;
}

/** Whether a node is active in a configuration: the configuration names it, or a state inside it. */
export function isActive(configuration: readonly string[], id: string): boolean {
  return configuration.some((key) => key === id || key.startsWith(`${id}.`));
}

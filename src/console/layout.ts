import dagre from '@dagrejs/dagre';
import type { Graph } from './types.js';

/** A node placed on the canvas (its centre), a group's box, an edge's points. */
export interface Placed {
  nodes: { id: string; x: number; y: number; w: number; h: number }[];
  groups: { id: string; x: number; y: number; w: number; h: number }[];
  /** `inner`: from a state to its branches or its sub-workflow's states (drawn dashed). */
  edges: { from: string; to: string; label?: string; inner?: boolean; points: { x: number; y: number }[] }[];
  width: number;
  height: number;
}

const NODE_H = 40;
const CHAR_W = 7.2;

/** Lays out a definition's graph with dagre (groups as compound nodes, left to right); the team's handoffs shape the layout only within a major. */
export function layoutGraph(graph: Graph): Placed {
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: graph.kind === 'team' ? 'TB' : 'LR', nodesep: 18, ranksep: graph.kind === 'team' ? 28 : 44, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const group of graph.groups) g.setNode(group.id, { label: group.label, paddingTop: 22 });
  for (const n of graph.nodes) {
    const w = Math.max(84, Math.ceil(Math.max(n.label.length, (n.detail ?? '').length * 0.85) * CHAR_W) + 20);
    g.setNode(n.id, { width: w, height: n.detail ? NODE_H + 6 : NODE_H });
  }
  for (const group of graph.groups) if (group.parent) g.setParent(group.id, group.parent);
  for (const n of graph.nodes) if (n.group) g.setParent(n.id, n.group);
  // A team allows almost every handoff: laying out all of them makes a hairball, so the majors are stacked
  // (lead to lead, in the team's order) and the handoffs are drawn only as they are made.
  const drawn: { from: string; to: string; label?: string; inner?: boolean }[] = graph.kind === 'team' ? teamSpine(graph) : [...graph.edges, ...innerEdges(graph)];
  for (const [i, e] of drawn.entries()) g.setEdge(e.from, e.to, { ...(e.label ? { label: e.label, width: Math.min(e.label.length, 28) * 6, height: 14 } : {}) }, `e${i}`);
  dagre.layout(g);
  const groups = new Set(graph.groups.map((x) => x.id));
  const box = (id: string) => {
    const n = g.node(id) as { x: number; y: number; width: number; height: number };
    return { id, x: n.x, y: n.y, w: n.width, h: n.height };
  };
  const out = g.graph() as { width?: number; height?: number };
  return {
    nodes: graph.nodes.map((n) => box(n.id)),
    groups: graph.groups.filter((x) => groups.has(x.id)).map((x) => box(x.id)),
    edges:
      graph.kind === 'team'
        ? []
        : g.edges().map((ref: { v: string; w: string; name?: string }) => {
            const e = drawn[Number(ref.name!.slice(1))]!;
            return { from: ref.v, to: ref.w, ...(e.label ? { label: e.label } : {}), ...(e.inner ? { inner: true } : {}), points: (g.edge(ref) as { points: { x: number; y: number }[] }).points };
          }),
    width: out.width ?? 0,
    height: out.height ?? 0,
  };
}

/** Edges from a parallel state to its branches, and from a state running a sub-workflow to the sub-workflow's states without a way in. */
function innerEdges(graph: Graph): { from: string; to: string; inner: true }[] {
  const targets = new Set(graph.edges.map((e) => e.to));
  return graph.groups.flatMap((group) =>
    group.state === undefined ? [] : graph.nodes.filter((n) => n.group === group.id && !targets.has(n.id)).map((n) => ({ from: group.state!, to: n.id, inner: true as const })),
  );
}

/** Invisible edges that stack a team's majors in order: each major's first persona after the previous major's first. */
function teamSpine(graph: Graph): { from: string; to: string; label?: string }[] {
  const firsts = graph.groups.map((group) => graph.nodes.find((n) => n.group === group.id)?.id).filter((id): id is string => id !== undefined);
  return firsts.slice(1).map((to, i) => ({ from: firsts[i]!, to }));
}

/** Whether a node is lit by a configuration: the configuration names it or a state inside it. */
export function isActive(configuration: readonly string[], id: string): boolean {
  return configuration.some((key) => key === id || key.startsWith(`${id}.`));
}

/** The node a state key belongs to: the deepest node whose id is the key or a prefix of it. */
export function nodeOf(ids: readonly string[], key: string): string | null {
  let best: string | null = null;
  for (const id of ids) if ((key === id || key.startsWith(`${id}.`)) && (best === null || id.length > best.length)) best = id;
  return best;
}

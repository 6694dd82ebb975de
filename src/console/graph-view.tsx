import { useMemo } from 'preact/hooks';
import { isActive, layoutGraph, nodeOf } from './layout.js';
import type { Graph } from './types.js';

/** Props of the graph: the definition's graph, the active states, the moves made so far, visit counts. */
export interface GraphViewProps {
  graph: Graph;
  configuration: readonly string[];
  /** Whether the active states are at work (running) or waiting. */
  running: boolean;
  moves: readonly { from: string; to: string }[];
  visits: Record<string, number>;
}

const center = (b: { x: number; y: number }) => `${b.x.toFixed(1)},${b.y.toFixed(1)}`;

/** The state machine or workflow drawn as a graph (laid out by dagre): groups, states, transitions; the active states and branches lit, the last moves drawn. */
export function GraphView({ graph, configuration, running, moves, visits }: GraphViewProps) {
  const placed = useMemo(() => {
    try {
      return layoutGraph(graph);
    } catch (error) {
      console.error('troupe console: the graph could not be laid out', error);
      return null;
    }
  }, [graph]);
  const ids = useMemo(() => graph.nodes.map((n) => n.id), [graph]);
  if (!placed) return <p class="muted">The graph cannot be drawn: troupe graph prints it as Mermaid.</p>;
  const byId = new Map(placed.nodes.map((n) => [n.id, n]));
  // The moves made, as node pairs (a workflow's move names a state inside a node: the node it is in); the newest five, the last one bold.
  const recent = moves
    .map((m) => ({ from: nodeOf(ids, m.from), to: nodeOf(ids, m.to) }))
    .filter((m): m is { from: string; to: string } => m.from !== null && m.to !== null && m.from !== m.to)
    .slice(-5);
  const active = graph.nodes.filter((n) => isActive(configuration, n.id)).map((n) => n.label);
  const label = `${graph.kind === 'team' ? 'Team' : 'Workflow'} ${graph.title}: ${graph.nodes.length} states; active: ${active.join(', ') || 'none'}`;
  return (
    <svg class="graph" viewBox={`0 0 ${Math.ceil(placed.width)} ${Math.ceil(placed.height)}`} role="img" aria-label={label} preserveAspectRatio="xMidYMin meet">
      <title>{label}</title>
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" />
        </marker>
        <marker id="arrow-hot" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead hot" />
        </marker>
      </defs>
      {placed.groups.map((g) => (
        <g key={g.id} class={`group${isActive(configuration, g.id) ? ' lit' : ''}`}>
          <rect x={g.x - g.w / 2} y={g.y - g.h / 2} width={g.w} height={g.h} rx="8" />
          <text x={g.x - g.w / 2 + 8} y={g.y - g.h / 2 + 15}>
            {graph.groups.find((x) => x.id === g.id)?.label}
          </text>
        </g>
      ))}
      {placed.edges.map((e, i) => (
        <g key={`e${i}`} class={`edge${e.inner ? ' inner' : ''}`}>
          <polyline points={e.points.map(center).join(' ')} marker-end="url(#arrow)" />
          {e.label ? (
            <text x={e.points[Math.floor(e.points.length / 2)]!.x + 4} y={e.points[Math.floor(e.points.length / 2)]!.y - 4}>
              {e.label.length > 28 ? `${e.label.slice(0, 27)}…` : e.label}
            </text>
          ) : null}
        </g>
      ))}
      {recent.map((m, i) => {
        const a = byId.get(m.from);
        const b = byId.get(m.to);
        if (!a || !b) return null;
        const last = i === recent.length - 1;
        const bend = (b.x - a.x) * 0.2 + 30;
        return (
          <path
            key={`m${i}`}
            class={`move${last ? ' last' : ''}`}
            d={`M ${center(a)} Q ${((a.x + b.x) / 2 + bend).toFixed(1)},${((a.y + b.y) / 2).toFixed(1)} ${center(b)}`}
            marker-end={last ? 'url(#arrow-hot)' : 'url(#arrow)'}
          />
        );
      })}
      {placed.nodes.map((p) => {
        const n = graph.nodes.find((x) => x.id === p.id)!;
        const lit = isActive(configuration, n.id);
        const count = visits[n.id] ?? 0;
        return (
          <g key={n.id} class={`node ${n.kind}${lit ? (running ? ' active' : ' current') : ''}`} data-node={n.id}>
            <rect x={p.x - p.w / 2} y={p.y - p.h / 2} width={p.w} height={p.h} rx="6" />
            <text x={p.x} y={p.y + (n.detail ? -3 : 5)} text-anchor="middle" class="label">
              {n.label}
            </text>
            {n.detail ? (
              <text x={p.x} y={p.y + 13} text-anchor="middle" class="detail">
                {n.detail}
              </text>
            ) : null}
            {count > 0 ? (
              <text x={p.x + p.w / 2 - 4} y={p.y - p.h / 2 + 11} text-anchor="end" class="visits">
                ×{count}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

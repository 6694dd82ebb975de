import type { ChartNode, StateSpec } from './node.js';
import { pathKey, type StatePath } from './path.js';
import { TroupeError } from '../../errors.js';

/** A built statechart: the root, every state by key, and the leaves by the agent they invoke. */
export interface Chart {
  readonly root: ChartNode;
  readonly byKey: ReadonlyMap<string, ChartNode>;
  /** The atomic state invoking each agent (first one in document order). */
  readonly byAgent: ReadonlyMap<string, ChartNode>;
}

/** A chart spec that cannot be built (duplicate id, unknown initial, children on a leaf). */
export class ChartError extends TroupeError {}

/** Builds a chart from a tree of specs; the root spec's id is not part of any path. */
export function buildChart(root: StateSpec): Chart {
  const byKey = new Map<string, ChartNode>();
  const byAgent = new Map<string, ChartNode>();
  let order = 0;
  const build = (spec: StateSpec, parent: ChartNode | null, path: StatePath): ChartNode => {
    const childSpecs = spec.children ?? [];
    if ((spec.kind === 'atomic' || spec.kind === 'final') && childSpecs.length > 0) throw new ChartError(`state ${pathKey(path) || spec.id}: a ${spec.kind} state has no children`);
    if ((spec.kind === 'compound' || spec.kind === 'parallel') && childSpecs.length === 0) throw new ChartError(`state ${pathKey(path) || spec.id}: a ${spec.kind} state needs children`);
    const node = {
      id: spec.id,
      kind: spec.kind,
      path,
      key: pathKey(path),
      depth: path.length,
      order: order++,
      parent,
      children: [] as ChartNode[],
      initial: null as ChartNode | null,
      invoke: spec.invoke ?? null,
      waitsForUser: spec.waitsForUser ?? false,
      meta: spec.meta ?? {},
    };
    const seen = new Set<string>();
    for (const c of childSpecs) {
      if (seen.has(c.id)) throw new ChartError(`state ${pathKey(path) || spec.id}: two children named ${c.id}`);
      seen.add(c.id);
      node.children.push(build(c, node, [...path, c.id]));
    }
    if (spec.kind === 'compound') {
      const initial = spec.initial === undefined ? node.children[0] : node.children.find((c) => c.id === spec.initial);
      if (!initial) throw new ChartError(`state ${pathKey(path) || spec.id}: initial "${spec.initial}" is not one of its children`);
      node.initial = initial;
    }
    if (parent) byKey.set(node.key, node);
    if (node.invoke && !byAgent.has(node.invoke.agent)) byAgent.set(node.invoke.agent, node);
    return node;
  };
  const rootNode = build(root, null, []);
  return { root: rootNode, byKey, byAgent };
}

/** The state at a path (the root for the empty path). */
export function nodeAt(chart: Chart, path: StatePath): ChartNode | undefined {
  return path.length === 0 ? chart.root : chart.byKey.get(pathKey(path));
}

/** The state under a key as events and snapshots carry it. */
export function nodeByKey(chart: Chart, key: string): ChartNode | undefined {
  return key === '' ? chart.root : chart.byKey.get(key);
}

/** The ancestors of a state, outermost first, without the root. */
export function ancestorsOf(node: ChartNode): ChartNode[] {
  const out: ChartNode[] = [];
  for (let n = node.parent; n?.parent; n = n.parent) out.unshift(n);
  return out;
}

/** The state's ancestor directly under the root (the state itself at depth 1). */
export function topLevelOf(node: ChartNode): ChartNode {
  let n = node;
  while (n.parent?.parent) n = n.parent;
  return n;
}

import { nodeAt, type Chart } from './chart.js';
import type { ChartNode } from './node.js';
import { commonAncestor, isWithin, parentPath, type StatePath } from './path.js';
import { TroupeError } from '../../errors.js';

/** The active states of a chart, as the keys of its active leaves (one per active region), in document order. */
export type Configuration = readonly string[];

/** What a transition does: the states it leaves (deepest first), the states it enters (outermost first), and the result (shared: read it, never change it). */
export interface TransitionSets {
  readonly exited: readonly ChartNode[];
  readonly entered: readonly ChartNode[];
  readonly configuration: Configuration;
}

/** Thrown for a transition to or from a state the chart does not have. */
export class UnknownStateError extends TroupeError {}

function leafOrThrow(chart: Chart, path: StatePath): ChartNode {
  const node = nodeAt(chart, path);
  if (!node) throw new UnknownStateError(`no state ${path.join('.') || '(root)'}`);
  return node;
}

/** The default states entered below a state: the initial child of a compound, every region of a parallel, recursively. */
function defaultsBelow(node: ChartNode, out: ChartNode[]): void {
  if (node.kind === 'compound' && node.initial) {
    out.push(node.initial);
    defaultsBelow(node.initial, out);
  } else if (node.kind === 'parallel') {
    for (const region of node.children) {
      out.push(region);
      defaultsBelow(region, out);
    }
  }
}

/** Every active state (leaves and their ancestors, without the root), each once. */
export function activeStates(chart: Chart, configuration: Configuration): ChartNode[] {
  const seen = new Set<string>();
  const out: ChartNode[] = [];
  for (const key of configuration) {
    for (let n = chart.byKey.get(key) ?? null; n?.parent; n = n.parent) {
      if (seen.has(n.key)) break;
      seen.add(n.key);
      out.push(n);
    }
  }
  return out;
}

/**
 * The sets of an external transition from `source` to `target`: states within the transition's domain
 * (the common ancestor, or its parent when one state contains the other, so a self-transition exits and
 * re-enters) are exited and the target with its defaults is entered; other parallel regions stay as they are.
 */
export function transitionSets(chart: Chart, configuration: Configuration, source: StatePath, target: StatePath): TransitionSets {
  // A chart never changes: the same move from the same configuration has the same sets (a workflow makes the same few moves every round).
  let memo = memos.get(chart);
  if (!memo) {
    memo = new Map();
    memos.set(chart, memo);
  }
  const key = JSON.stringify([configuration, source, target]);
  const known = memo.get(key);
  if (known) return known;
  const sets = computeSets(chart, configuration, source, target);
  if (memo.size >= MAX_MEMO) memo.clear();
  memo.set(key, sets);
  return sets;
}

// Moves remembered per chart (a chart of many parallel regions has many configurations: the memo stays bounded).
const MAX_MEMO = 1024;
const memos = new WeakMap<Chart, Map<string, TransitionSets>>();

function computeSets(chart: Chart, configuration: Configuration, source: StatePath, target: StatePath): TransitionSets {
  leafOrThrow(chart, source);
  const targetNode = leafOrThrow(chart, target);
  let domain = commonAncestor(source, target);
  if (domain.length === target.length || domain.length === source.length) domain = parentPath(domain);
  const active = activeStates(chart, configuration);
  const exited = active.filter((n) => n.path.length > domain.length && isWithin(n.path, domain)).sort((a, b) => b.depth - a.depth);
  const entered: ChartNode[] = [];
  for (let depth = domain.length + 1; depth <= target.length; depth++) {
    const node = nodeAt(chart, target.slice(0, depth))!;
    entered.push(node);
    // Entering a parallel state on the way to one region enters every other region by default.
    if (node.kind === 'parallel' && depth < target.length) {
      for (const region of node.children) {
        if (region.id === target[depth]) continue;
        entered.push(region);
        defaultsBelow(region, entered);
      }
    }
  }
  defaultsBelow(targetNode, entered);
  const exitedKeys = new Set(exited.map((n) => n.key));
  const kept = configuration.filter((key) => !exitedKeys.has(key));
  const enteredLeaves = entered.filter((n) => n.children.length === 0).map((n) => n.key);
  const position = (key: string) => chart.byKey.get(key)?.order ?? 0;
  const next = [...kept, ...enteredLeaves].sort((a, b) => position(a) - position(b));
  return { exited, entered, configuration: next };
}

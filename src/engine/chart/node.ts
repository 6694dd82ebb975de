import type { StatePath } from './path.js';

/** The kinds of states: a leaf, a state with one active child, a state whose children (regions) are all active, an end. Which state comes next is the policy's choice, not the tree's. */
export type StateKind = 'atomic' | 'compound' | 'parallel' | 'final';

/** The one kind of side effect a state starts on entry: an agent turn (persona or role), identified by its agent id. */
export interface InvokeSpec {
  agent: string;
}

/** How to build a chart: a tree of state specs (ids unique among siblings). */
export interface StateSpec {
  id: string;
  kind: StateKind;
  /** The child entered by default (compound states; defaults to the first child). */
  initial?: string;
  children?: StateSpec[];
  invoke?: InvokeSpec;
  /** A state where the session waits for the user instead of invoking an agent. */
  waitsForUser?: boolean;
  /** Free-form labels a definition keeps with the state (display names, workflow state names). */
  meta?: Record<string, string>;
}

/** A state of a built chart: its spec, its path and key, its parent and children. */
export interface ChartNode {
  readonly id: string;
  readonly kind: StateKind;
  readonly path: StatePath;
  readonly key: string;
  readonly depth: number;
  /** Position in document order (the root is 0). */
  readonly order: number;
  readonly parent: ChartNode | null;
  readonly children: readonly ChartNode[];
  readonly initial: ChartNode | null;
  readonly invoke: InvokeSpec | null;
  readonly waitsForUser: boolean;
  readonly meta: Readonly<Record<string, string>>;
}

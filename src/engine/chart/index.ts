/** The generic statechart: typed state paths, states (atomic, compound, parallel, final) and transition sets. */
export { pathKey, parentPath, isWithin, commonAncestor, parsePathText, type StatePath } from './path.js';
export type { StateKind, StateSpec, TransitionSpec, InvokeSpec, ChartNode } from './node.js';
export { buildChart, nodeAt, nodeByKey, ancestorsOf, topLevelOf, ChartError, type Chart } from './chart.js';
export {
  activeStates,
  initialConfiguration,
  transitionSets,
  isDone,
  enabledTransitions,
  UnknownStateError,
  type Configuration,
  type TransitionSets,
  type EnabledTransition,
} from './configuration.js';

/** The state tree: typed state paths, states (atomic, compound, parallel, final) and the states a move leaves and enters. Policies choose the moves. */
export { pathKey, parentPath, isWithin, commonAncestor, parsePathText, type StatePath } from './path.js';
export type { StateKind, StateSpec, InvokeSpec, ChartNode } from './node.js';
export { buildChart, nodeAt, nodeByKey, ancestorsOf, topLevelOf, ChartError, type Chart } from './chart.js';
export { activeStates, transitionSets, UnknownStateError, type Configuration, type TransitionSets } from './configuration.js';

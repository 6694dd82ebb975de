import type { Limits } from '../config/team-schema.js';
import type { ArbiterPersona } from '../arbiter/arbitrate.js';
import type { Chart } from './chart/chart.js';
import type { StatePath } from './chart/path.js';
import type { EngineInput } from './input-events.js';
import type { TransitionRecord } from './moves.js';
import type { Effect } from './effects.js';
import type { SessionState } from './session.js';

/** An agent the chart invokes (a persona of a team, or a workflow role): its state and how it is shown. */
export interface AgentState extends ArbiterPersona {
  /** Key of its state (`MAJOR.persona_id`), as events and snapshots carry it. */
  path: string;
  /** Its state's path in the chart. */
  statePath: StatePath;
  /** Id of the top-level state holding it (its major). */
  major: string;
  /** Model tier or id from its config. */
  model: string;
  description: string;
}

/** The working set of one step: definition, a private draft of the session, effects produced. */
export interface StepContext {
  def: MachineDefinition;
  s: SessionState;
  fx: Effect[];
}

/**
 * A definition's routing policy, the core's one plug-in: it chooses every move. It keeps its own state
 * in the session (fields it declares in `PolicySlots`), reads its own settings from the definition
 * (fields it declares in `DefinitionSlots`), and handles every input the core does not handle itself,
 * including the inputs it declares (`PolicyInputs`).
 */
export interface Policy {
  /** The policy's own state for a fresh session (its fields of the session state). */
  initialState(def: MachineDefinition): Partial<SessionState>;
  /** Copies the policy's state into a step's draft where its code changes it in place (the core copies only the top level). */
  draft?(s: SessionState): void;
  /** The brief arrived: enter the first state. */
  start(ctx: StepContext, brief: string): void;
  /** Any other input (model results, user actions, budgets). */
  onInput(ctx: StepContext, input: EngineInput): void;
  /** Work besides the main call that was in flight when the state was saved (branches, a sandbox evaluation), to run again on resume. */
  resumeEffects?(session: SessionState): Effect[];
  /** A state change happened (the policy may remember it, e.g. for loop detection). */
  onTransition?(ctx: StepContext, record: TransitionRecord): void;
}

/**
 * What each policy reads from a definition, by field: a policy module adds its own with
 * `declare module '…/engine/definition.js' { interface DefinitionSlots { … } }` (the team's settings, a
 * workflow's plan). The core never reads them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface, so policy modules can add to it (declaration merging); a type alias cannot be
export interface DefinitionSlots {}

/** The statechart the engine interprets: the chart, its agents, the routing policy, limits, and what its policy reads. */
export interface MachineDefinition extends DefinitionSlots {
  name: string;
  /** The kind of definition its policy runs ("team", "workflow"). */
  kind: string;
  chart: Chart;
  agents: AgentState[];
  /** Agents by id. */
  agentIndex: ReadonlyMap<string, AgentState>;
  /** Key of the state that holds the user. */
  userPath: string;
  /** The agent the session starts with (teams). */
  initial: string;
  /** Key of the state a session's brief enters first. */
  entry: string;
  policy: Policy;
  limits: Limits;
}

/** Finds an agent by id. */
export function agentById(def: MachineDefinition, id: string): AgentState | undefined {
  return def.agentIndex.get(id);
}

import type { Limits } from '../config/team-schema.js';
import type { ArbiterPersona } from '../arbiter/arbitrate.js';
import type { Chart } from './chart/chart.js';
import type { StatePath } from './chart/path.js';
import type { EngineInput } from './input-events.js';
import type { TransitionRecord } from './moves.js';
import type { Effect } from './effects.js';
import type { SessionState } from './session.js';
import type { StepContext } from './context.js';
import type { TeamSettings } from '../routing/team-settings.js';
import type { WorkflowPlan } from '../workflow/run/plan.js';

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

/** What a definition's routing policy does with the inputs the core does not handle itself. */
export interface Policy {
  /** The policy's own state for a fresh session. */
  initialRouting(def: MachineDefinition): SessionState['routing'];
  /** The brief arrived: enter the first state. */
  start(ctx: StepContext, brief: string): void;
  /** Any other input (model results, user actions, budgets). */
  onInput(ctx: StepContext, input: EngineInput): void;
  /** Work besides the main call that was in flight when the state was saved (branches, a sandbox evaluation), to run again on resume. */
  resumeEffects?(session: SessionState): Effect[];
  /** A state change happened (the policy may remember it, e.g. for loop detection). */
  onTransition?(ctx: StepContext, record: TransitionRecord): void;
}

/** The statechart the engine interprets: the chart, its agents, the routing policy, limits. */
export interface MachineDefinition {
  name: string;
  kind: 'team' | 'workflow';
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
  /** The workflow plan (workflow definitions only). */
  workflow?: WorkflowPlan;
  /** The team's majors, routing, arbiter, rules and approval gates (team definitions only; the team policy reads them). */
  team: TeamSettings | null;
  policy: Policy;
  limits: Limits;
}

/** Finds an agent by id. */
export function agentById(def: MachineDefinition, id: string): AgentState | undefined {
  return def.agentIndex.get(id);
}

import type { LoadedTeam } from '../config/load-team.js';
import type { ApprovalPolicy, Limits } from '../config/team-schema.js';
import type { Criteria } from '../arbiter/proposal.js';
import type { ArbiterPersona } from '../arbiter/arbitrate.js';
import type { TriggerRule } from '../arbiter/triggers.js';

/** A leaf state: one persona inside a major. */
export interface AgentState extends ArbiterPersona {
  path: string;
  major: string;
  model: string;
  description: string;
}

/** A compound state holding persona substates (or the user). */
export interface MajorState {
  id: string;
  kind: 'team' | 'user';
  lead: string | null;
  children: string[];
  description: string;
}

/** How the next state is chosen after a turn: by directives and the arbiter, or by a fixed pipeline. */
export type Routing = { kind: 'directive' } | { kind: 'pipeline'; stages: { stage: string; persona: string }[] };

/** Session modes and the routing each one runs. */
export type Mode = 'fsm' | 'simple';

/** The statechart the engine interprets: states, routing per mode, arbiter and limits. */
export interface MachineDefinition {
  name: string;
  majors: MajorState[];
  agents: AgentState[];
  userMajor: string;
  userPath: string;
  initial: string;
  routing: Record<Mode, Routing>;
  arbiter: {
    weights: Criteria;
    defaults: Criteria;
    blockingDependency: number | null;
    triggerWindow: number;
    ruleCooldown: number;
    queueTtl: number;
  };
  rules: TriggerRule[];
  limits: Limits;
  approval: ApprovalPolicy;
}

/** Finds an agent state by persona id. */
export function agentById(def: MachineDefinition, id: string): AgentState | undefined {
  return def.agents.find((a) => a.id === id);
}

/** Compiles a loaded team into the statechart definition. */
export function compileTeam(loaded: LoadedTeam): MachineDefinition {
  const { team, personas } = loaded;
  const membersOf = new Map(team.majors.map((m) => [m.id, m.personas]));
  const userMajor = team.majors.find((m) => m.kind === 'user')!.id;
  const agents: AgentState[] = personas.map((p) => ({
    id: p.id,
    name: p.name,
    major: p.major,
    path: `${p.major}.${p.id}`,
    model: p.model,
    description: p.description,
    allowed: p.handoff_to.length === 0 ? null : new Set(p.handoff_to.flatMap((t) => membersOf.get(t) ?? [t])),
  }));
  const rules: TriggerRule[] = personas.flatMap((p) =>
    p.triggers.map((t, i) => ({
      id: t.id ?? `${p.id}#${i}`,
      owner: p.id,
      keywords: t.keywords,
      andKeywords: t.and_keywords ?? [],
      criteria: t.criteria,
      detour: t.detour,
      reason: t.reason,
    })),
  );
  return {
    name: team.name,
    majors: team.majors.map((m) => ({
      id: m.id,
      kind: m.kind,
      lead: m.lead ?? null,
      children: m.personas,
      description: m.description,
    })),
    agents,
    userMajor,
    userPath: `${userMajor}.user`,
    initial: team.initial.split('.')[1]!,
    routing: { fsm: { kind: 'directive' }, simple: { kind: 'pipeline', stages: team.pipeline } },
    arbiter: {
      weights: team.arbiter.weights,
      defaults: team.arbiter.default_criteria,
      blockingDependency: team.arbiter.blocking_dependency,
      triggerWindow: team.arbiter.trigger_window,
      ruleCooldown: team.arbiter.rule_cooldown_turns,
      queueTtl: team.arbiter.queue_ttl_turns,
    },
    rules,
    limits: team.limits,
    approval: team.approval,
  };
}

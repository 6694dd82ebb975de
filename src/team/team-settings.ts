import type { ApprovalPolicy } from '../config/team-schema.js';
import type { Criteria } from '../arbiter/proposal.js';
import type { TriggerRule } from '../arbiter/triggers.js';
import type { MachineDefinition } from '../engine/definition.js';
import type { Mode } from '../engine/session.js';

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

/** The arbiter's weights and defaults, and how trigger rules and deferred proposals behave. */
export interface ArbiterSettings {
  weights: Criteria;
  defaults: Criteria;
  blockingDependency: number | null;
  triggerWindow: number;
  ruleCooldown: number;
  queueTtl: number;
}

/** What the team routing policy reads from a team's definition: majors, routing per mode, arbiter, trigger rules, approval gates. */
export interface TeamSettings {
  majors: MajorState[];
  userMajor: string;
  routing: Record<Mode, Routing>;
  arbiter: ArbiterSettings;
  rules: TriggerRule[];
  approval: ApprovalPolicy;
}

/** The team settings of a definition (the team policy only runs on team definitions). */
export function teamOf(def: MachineDefinition): TeamSettings {
  if (!def.team) throw new Error(`routing: ${def.name} has no team settings`);
  return def.team;
}

/** The ids of a definition's team majors (none for a workflow). */
export function teamMajorIds(def: MachineDefinition): string[] {
  return (def.team?.majors ?? []).filter((m) => m.kind === 'team').map((m) => m.id);
}

declare module '../engine/definition.js' {
  interface DefinitionSlots {
    /** The team's majors, routing, arbiter, rules and approval gates (team definitions only). */
    team?: TeamSettings | null;
  }
}

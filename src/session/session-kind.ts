import type { MachineDefinition } from '../engine/definition.js';
import { resolveModelId } from '../llm/model-resolver.js';
import type { PromptBuilder } from '../memory/prompt-builder.js';
import type { Evaluator } from '../kernel/effect-runner.js';
import type { OpenTeam } from '../team/open-team.js';
import type { TurnShaper } from '../kernel/turn-shaper.js';
import { teamTurns } from '../team/turns.js';

/**
 * What a kind of session (a team, a declarative workflow) brings to the kernel: its compiled definition
 * (chart and policy), the model of each agent, how its turns are asked and read, and what it needs
 * besides (the team's rolling memory, a workflow's sandbox and workspaces). The composition root picks a
 * kind; the kernel and its ports are the same for every kind.
 */
export interface SessionKind {
  readonly def: MachineDefinition;
  /** Model id of an agent (its tier resolved). */
  modelFor(agent: string): string;
  /** Turns see the past through a prompt builder (the rolling memory, or the whole transcript); a workflow keeps its own contexts instead. */
  readonly prompted: boolean;
  /** How its agent turns are asked and read, given the prompt builder (null when not prompted). */
  turns(prompt: PromptBuilder | null): TurnShaper;
  /** Where new agent workspaces start (workflows that set `workspace`). */
  readonly workspace?: { from: string | null; git: boolean };
  /** Opens the sandbox its code runs in (workflows); closed when the session stops. */
  openEvaluator?(): Promise<Evaluator & { close(): Promise<void> }>;
}

/** Tier overrides for one session (as TROUPE_MODEL_BASE / _SMART / _FAST would give them). */
export type Tiers = { base?: string; smart?: string; fast?: string };

/** The environment variables that map tiers to the model ids given. */
export function tierVariables(tiers: Tiers | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (tiers?.base) out.TROUPE_MODEL_BASE = tiers.base;
  if (tiers?.smart) out.TROUPE_MODEL_SMART = tiers.smart;
  if (tiers?.fast) out.TROUPE_MODEL_FAST = tiers.fast;
  return out;
}

/** A team session: directives, the arbiter and the team's prompts; tier overrides win over the team's and the environment's. */
export function teamKind(team: OpenTeam, options: { tiers?: Tiers; env?: Record<string, string | undefined> } = {}): SessionKind {
  const env = { ...(options.env ?? process.env), ...tierVariables(options.tiers) };
  const models = new Map(team.loaded.personas.map((p) => [p.id, p.model]));
  const modelFor = options.tiers ? (id: string) => resolveModelId(models.get(id) ?? 'base', team.loaded.team.models, env) : team.modelFor;
  return {
    def: team.def,
    modelFor,
    prompted: true,
    turns: (prompt) => {
      if (!prompt) throw new Error('team turns need a prompt builder');
      return teamTurns(team.def, prompt, team.loaded.prompts);
    },
  };
}

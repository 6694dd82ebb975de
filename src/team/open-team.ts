import { loadTeamOrThrow, type LoadedTeam } from '../config/load-team.js';
import type { MachineDefinition } from '../engine/definition.js';
import { compileTeam } from './compile-team.js';
import { resolveModelId } from '../llm/model-resolver.js';

/** A loaded team with its compiled statechart and persona model ids. */
export interface OpenTeam {
  loaded: LoadedTeam;
  def: MachineDefinition;
  modelFor: (personaId: string) => string;
}

/** Loads, validates and compiles a team directory; throws ConfigError listing every problem. */
export function openTeam(dir: string, overrides: { maxTurns?: number } = {}, env: Record<string, string | undefined> = process.env): OpenTeam {
  const loaded = loadTeamOrThrow(dir);
  const def = compileTeam(loaded);
  if (overrides.maxTurns !== undefined) def.limits = { ...def.limits, max_turns: overrides.maxTurns };
  const byId = new Map(loaded.personas.map((p) => [p.id, p.model]));
  const modelFor = (id: string) => resolveModelId(byId.get(id) ?? 'base', loaded.team.models, env);
  return { loaded, def, modelFor };
}

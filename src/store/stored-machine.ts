import { z } from 'zod';
import type { LoadedTeam } from '../config/load-team.js';
import { PersonaSchema } from '../config/persona-schema.js';
import { TeamSchema } from '../config/team-schema.js';
import type { MachineDefinition } from '../engine/definition.js';
import { compileTeam } from '../team/compile-team.js';
import { openTeam } from '../team/open-team.js';
import { compileWorkflow } from '../workflow/run/compile.js';
import { type MachineLine, sourceOf, type TeamConfig } from './machine-lines.js';
import type { SessionDocument } from './session-file.js';

// Team directories opened once per process (a listing folds many sessions of the same team); null: it cannot be opened.
const teams = new Map<string, MachineDefinition | null>();

/** The machine a stored session runs, as reopening it would build it (its workflow's plan, else its team directory), or null when its team cannot be opened. */
export function storedMachine(doc: SessionDocument): MachineDefinition | null {
  const maxTurns = doc.team.maxTurns;
  if (doc.workflow?.plan) return compileWorkflow(doc.workflow.plan, maxTurns !== undefined ? { max_turns: maxTurns } : {});
  const key = `${doc.team.dir}\u0000${maxTurns ?? ''}`;
  if (!teams.has(key)) {
    try {
      teams.set(key, openTeam(doc.team.dir, maxTurns !== undefined ? { maxTurns } : {}).def);
    } catch {
      teams.set(key, null);
    }
  }
  return teams.get(key) ?? null;
}

const TeamConfigSchema = z.object({ team: TeamSchema, personas: z.array(PersonaSchema) });

// Recorded team configs compiled once per process, by the hash of what the line holds (not the hash it names).
const recorded = new Map<string, MachineDefinition>();

/**
 * The machine a journal's machine line records, as the session ran it: its workflow's plan, or the team config it
 * (or the earlier line it names, in `configs` by line number) holds, with its max-turns limit. A config that no
 * longer parses or compiles throws; a line naming one not in `configs` (a replay from a checkpoint) is the
 * session's team directory as it is now, with the recorded limit.
 */
export function recordedMachine(doc: SessionDocument, line: MachineLine, config: unknown): MachineDefinition | null {
  const limits = line.maxTurns !== undefined ? { max_turns: line.maxTurns } : {};
  if (doc.workflow?.plan) return compileWorkflow(doc.workflow.plan, limits);
  if (config === undefined) {
    const { maxTurns: _now, ...team } = doc.team;
    return storedMachine({ ...doc, team: line.maxTurns !== undefined ? { ...team, maxTurns: line.maxTurns } : team });
  }
  const key = `${sourceOf(config as TeamConfig)}\u0000${line.maxTurns ?? ''}`;
  let def = recorded.get(key);
  if (!def) {
    const parsed = TeamConfigSchema.parse(config);
    def = compileTeam({ dir: doc.team.dir, team: parsed.team as LoadedTeam['team'], personas: parsed.personas as LoadedTeam['personas'], prompts: {} });
    def.limits = { ...def.limits, ...limits };
    recorded.set(key, def);
  }
  return def;
}

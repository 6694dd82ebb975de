import type { MachineDefinition } from '../engine/definition.js';
import { openTeam } from '../team/open-team.js';
import { compileWorkflow } from '../workflow/run/compile.js';
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

import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import type { JournalRecord, SessionDocument } from '../store/session-file.js';
import { openTeam } from '../team/open-team.js';
import { compileWorkflow } from '../workflow/run/compile.js';
import { foldJournal } from './fold.js';

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

/** A stored session's state at its journal's end: the lines after its checkpoint folded over it (null when its machine cannot be built). */
export function foldStoredTail(doc: SessionDocument, tail: readonly JournalRecord[]): SessionState | null {
  const def = storedMachine(doc);
  if (!def) return null;
  try {
    return foldJournal(def, doc.checkpoint.snapshot, tail);
  } catch {
    // A team changed since in a way its old lines no longer fit: the listing keeps the checkpoint's state.
    return null;
  }
}

/** A read session's state as its journal ends, folded with the machine it is shown with (the checkpoint's state when the lines do not fit it). */
export function stateAtJournalEnd(read: { doc: SessionDocument; records: readonly JournalRecord[] }, def: MachineDefinition): SessionState {
  const { checkpoint } = read.doc;
  const tail = read.records.slice(checkpoint.records);
  if (tail.length === 0) return checkpoint.snapshot;
  try {
    return foldJournal(def, checkpoint.snapshot, tail);
  } catch {
    // Lines the team as it is now cannot replay (it changed since): the checkpoint's state is shown.
    return checkpoint.snapshot;
  }
}

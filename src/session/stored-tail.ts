import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import type { JournalRecord, SessionDocument } from '../store/session-file.js';
import { openTeam } from '../team/open-team.js';
import { compileWorkflow } from '../workflow/run/compile.js';
import { foldJournal } from './fold.js';
import { step } from '../engine/step.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { addUsageEvent, checkpointUsage, type SessionAtEnd } from '../store/listing.js';
import { TransitionFold } from '../warming/transition-fold.js';
import { transitionTableOf } from '../warming/transitions.js';

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

/**
 * A stored session as its journal ends, in one pass over the lines after its checkpoint: their inputs stepped
 * over its state, their usage events added to its usage totals and their moves to its learned transitions, as
 * reopening it would restore them (see restoreMeter, openTransitions). The state is null when its machine cannot
 * be built or the lines no longer fit it; usage is folded all the same.
 */
export function foldStoredTail(doc: SessionDocument, tail: readonly JournalRecord[]): SessionAtEnd {
  const def = storedMachine(doc);
  const usage = checkpointUsage(doc);
  const saved = doc.checkpoint.transitions;
  // A checkpoint from before transitions were kept teaches nothing (as its listing did), tail or not.
  const transitions = def && saved !== undefined ? new TransitionFold(def, saved) : null;
  let state: SessionState | null = def ? doc.checkpoint.snapshot : null;
  for (const r of tail) {
    if (state && def && r.input) {
      try {
        state = step(def, state, r.input).session;
      } catch {
        // A team changed since in a way its old lines no longer fit: the listing keeps the checkpoint's state.
        state = null;
      }
    }
    for (const e of r.events) {
      if (!addUsageEvent(usage, e)) transitions?.add(e as unknown as TroupeEvent);
    }
  }
  return { state, usage, transitions: transitions ? transitions.toJSON() : transitionTableOf(saved) };
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

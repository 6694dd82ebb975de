import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import type { JournalRecord, SessionDocument } from '../store/session-file.js';
import { storedMachine } from '../store/stored-machine.js';
import { foldJournal } from './fold.js';
import { JournalReplay } from '../store/journal-replay.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { addUsageEvent, checkpointUsage, type SessionAtEnd } from '../store/listing.js';
import { TransitionFold } from '../warming/transition-fold.js';
import { transitionTableOf } from '../warming/transitions.js';

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
  // The inputs stepped over the checkpoint's state give a schema-8 line's derived events back (a team learns from its transitions).
  const replay = new JournalReplay(doc, def, doc.checkpoint.snapshot);
  for (const [i, r] of tail.entries()) {
    replay.next(r, doc.checkpoint.records + i + 1);
    for (const e of r.events) {
      if (!addUsageEvent(usage, e)) transitions?.add(e as unknown as TroupeEvent);
    }
  }
  return { state: replay.state, usage, transitions: transitions ? transitions.toJSON() : transitionTableOf(saved) };
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

import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import type { JournalRecord, SessionDocument } from '../store/session-file.js';
import { storedMachine } from '../store/stored-machine.js';
import { JournalReplay } from '../store/journal-replay.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { addUsageEvent, checkpointUsage, type SessionAtEnd } from '../store/listing.js';
import { TransitionFold } from '../warming/transition-fold.js';
import { transitionTableOf } from '../warming/transitions.js';
import { sessionAt } from './at-step.js';

/**
 * A stored session as its journal ends, in one pass over the lines after its checkpoint: their inputs stepped
 * over its state, their usage events added to its usage totals and their moves to its learned transitions, as
 * reopening it would restore them (see restoreMeter, openTransitions). `machines` gives the journal's machine lines
 * before the tail (read only when the tail steps an input): the tail runs the machine they record, as sessionAt
 * replays it (without them, or before the first, the session's team directory as it is now). The state is null
 * when its machine cannot be built or the lines no longer fit it; usage is folded all the same.
 */
export function foldStoredTail(doc: SessionDocument, tail: readonly JournalRecord[], machines: () => readonly JournalRecord[] = () => []): SessionAtEnd {
  const usage = checkpointUsage(doc);
  const saved = doc.checkpoint.transitions;
  // The inputs stepped over the checkpoint's state give a schema-8 line's derived events back (a team learns from its transitions).
  const replay = new JournalReplay(doc, () => storedMachine(doc), doc.checkpoint.snapshot);
  const steps = tail.some((r) => r.input !== undefined);
  if (steps) for (const m of machines()) if (m.machine && m.n <= doc.checkpoint.records) replay.next(m, m.n);
  // A checkpoint from before transitions were kept teaches nothing (as its listing did), tail or not.
  const def = saved !== undefined ? (steps ? replay.machine : storedMachine(doc)) : null;
  const transitions = def ? new TransitionFold(def, saved) : null;
  for (const [i, r] of tail.entries()) {
    replay.next(r, doc.checkpoint.records + i + 1);
    for (const e of r.events) {
      if (!addUsageEvent(usage, e)) transitions?.add(e as unknown as TroupeEvent);
    }
  }
  return { state: replay.state, usage, transitions: transitions ? transitions.toJSON() : transitionTableOf(saved) };
}

/** A read session as its journal ends, as it is shown: the machine its last lines ran (which names its personas; see sessionAt) and its state there, the checkpoint's when the lines do not fit their machines; `before` runs the lines no machine line comes before. */
export function storedAtEnd(read: { doc: SessionDocument; records: readonly JournalRecord[] }, before: () => MachineDefinition): { def: MachineDefinition; state: SessionState } {
  const { checkpoint } = read.doc;
  const at = sessionAt(read, before, Math.max(read.records.length, checkpoint.records));
  return { def: at.def, state: at.state ?? checkpoint.snapshot };
}

/** A read session's state as its journal ends (see storedAtEnd; `def` runs the lines no machine line comes before). */
export function stateAtJournalEnd(read: { doc: SessionDocument; records: readonly JournalRecord[] }, def: MachineDefinition): SessionState {
  return storedAtEnd(read, () => def).state;
}

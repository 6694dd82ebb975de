import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import { step } from '../engine/step.js';
import type { JournalRecord } from '../store/session-file.js';

/** Folds the inputs of journal records over a state with `step()` (no effect is executed): replay is re-feeding the journal. */
export function foldJournal(def: MachineDefinition, from: SessionState, records: readonly JournalRecord[]): SessionState {
  let state = from;
  for (const r of records) if (r.input) state = step(def, state, r.input).session;
  return state;
}

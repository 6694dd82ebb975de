import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import { UserError } from '../errors.js';
import type { JournalRecord } from '../store/session-file.js';
import type { ReadSession } from '../store/store.js';
import { foldJournal } from './fold.js';

/** The session's state after its first `step` journal steps: its starting state with their inputs folded in (time travel; nothing runs). */
export function stateAtStep(def: MachineDefinition, read: ReadSession, step: number): SessionState {
  const last = read.records.length;
  if (!Number.isInteger(step) || step < 0 || step > last) throw new UserError(`step ${step} is not a step of session ${read.doc.id}: it has steps 0 to ${last}`);
  return foldJournal(def, read.doc.base, read.records.slice(0, step));
}

/** The seq of the last event published by the first `step` journal steps (0 before any). */
export function lastSeqAtStep(read: ReadSession, step: number): number {
  return lastSeqOf(read.records.slice(0, step));
}

/** The seq of the last event journal records published (0: none), counting the derived events a schema-8 line leaves out that were not replayed. */
export function lastSeqOf(records: readonly JournalRecord[]): number {
  let seq = 0;
  for (const r of records) {
    for (const e of r.events) seq = Math.max(seq, (e as { seq: number }).seq);
    if (r.derived && r.derived.count > 0) seq = Math.max(seq, r.derived.seq + r.derived.count - 1);
  }
  return seq;
}

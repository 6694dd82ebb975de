import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import { UserError } from '../errors.js';
import { JournalReplay } from '../store/journal-replay.js';
import type { JournalRecord, SessionDocument } from '../store/session-file.js';
import { MachineLines } from '../store/stored-machine.js';

/** A stored session at a journal step: its state there (null: its lines no longer replay) and the machine its steps there ran, which names its personas and states. */
export interface SessionAt {
  state: SessionState | null;
  def: MachineDefinition;
}

/**
 * "The machine and names of session X at line N", the one answer every reader of a stored session uses (show,
 * export, fork, serve's views, steps and event frames; the listing folds the same way, see foldStoredTail): the
 * session after its first `step` journal lines (default: all), replayed with the machines its machine lines record
 * (see MachineLines) — from its checkpoint's state when the step is at or past the checkpoint's line, else from its
 * base. `before` gives the machine of the lines no machine line comes before (journals written before them), and
 * the names when the recorded machine cannot be built; it is asked for only then. Nothing runs: step() is pure.
 */
export function sessionAt(read: { doc: SessionDocument; records: readonly JournalRecord[] }, before: () => MachineDefinition, step = read.records.length): SessionAt {
  const { doc, records } = read;
  let given: MachineDefinition | null = null;
  const fallback = () => (given ??= before());
  const last = Math.min(step, records.length);
  const start = step >= doc.checkpoint.records ? Math.min(doc.checkpoint.records, last) : 0;
  const replay = new JournalReplay(doc, fallback, start > 0 ? doc.checkpoint.snapshot : doc.base);
  for (let i = 0; i < last; i++) {
    const record = records[i]!;
    // Before the state replayed from, only the machine lines count: they say which machine the lines after run.
    if (i >= start || record.machine) replay.next(record, i + 1);
  }
  return { state: step >= doc.checkpoint.records && last <= doc.checkpoint.records ? doc.checkpoint.snapshot : replay.state, def: replay.machine ?? fallback() };
}

/** The machine of session `read` at its first `step` journal lines (default: all), as sessionAt reads it, without replaying a step: for its names alone. */
export function machineAt(read: { doc: SessionDocument; records: readonly JournalRecord[] }, before: () => MachineDefinition, step = read.records.length): MachineDefinition {
  const machines = new MachineLines(read.doc);
  const last = Math.min(step, read.records.length);
  for (let i = 0; i < last; i++) {
    const machine = read.records[i]!.machine;
    if (machine) machines.read(machine, i + 1);
  }
  return machines.def ?? before();
}

/** The session after its first `step` journal steps (see sessionAt), a step it has and whose lines replay (time travel; nothing runs). */
export function sessionAtStep(read: { doc: SessionDocument; records: readonly JournalRecord[] }, before: () => MachineDefinition, step: number): { def: MachineDefinition; state: SessionState } {
  const last = read.records.length;
  if (!Number.isInteger(step) || step < 0 || step > last) throw new UserError(`step ${step} is not a step of session ${read.doc.id}: it has steps 0 to ${last}`);
  const { def, state } = sessionAt(read, before, step);
  if (state === null)
    throw new UserError(`step ${step} of session ${read.doc.id} cannot be replayed: its lines no longer fit the machine they ran (its team or workflow changed since, or its journal was edited)`);
  return { def, state };
}

/** The session's state after its first `step` journal steps (see sessionAtStep; `def` runs the lines no machine line comes before). */
export function stateAtStep(def: MachineDefinition, read: { doc: SessionDocument; records: readonly JournalRecord[] }, step: number): SessionState {
  return sessionAtStep(read, () => def, step).state;
}

/** The seq of the last event published by the first `step` journal steps (0 before any). */
export function lastSeqAtStep(read: { records: readonly JournalRecord[] }, step: number): number {
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

import { UserError } from '../errors.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { JournalRecord, SessionDocument } from './session-file.js';
import type { Store } from './store.js';

/** What a fork is: the session and journal step it starts from, the new session's id, and when it is made. */
export interface ForkRequest {
  from: string;
  /** The journal step (line number) to fork at: the new journal holds lines 1..step; 0 forks the session before its first step. */
  step: number;
  id: string;
  /** ISO time of the fork (injected in tests). */
  now: string;
}

/**
 * A journal record carried into another session: its events renamed to that session, its seal dropped (the new journal
 * seals it in its own chain); where its derived events could not be replayed, where they go is carried too, and a
 * machine line as it is (the lines after it run that machine in the fork as they did in its source).
 */
function carried(record: JournalRecord, id: string): JournalRecord {
  const events = record.events.map((e) => ({ ...(e as unknown as TroupeEvent), session_id: id }));
  return {
    n: record.n,
    ...(record.machine ? { machine: record.machine } : {}),
    ...(record.input ? { input: record.input } : {}),
    ...(record.facts !== undefined ? { facts: record.facts } : {}),
    events: events as unknown as JournalRecord['events'],
    ...(record.derived ? { derived: record.derived } : {}),
  };
}

/**
 * Forks a stored session at a journal step: a new session of the same definition whose journal is a new
 * chain holding the source's inputs and events up to that step, with `forkedFrom` in its document. The
 * source is only read (never opened for writing, so it may be running in another process). The new
 * session's checkpoint is its starting state: opening it folds the copied lines, as resuming does.
 */
export async function forkSession(store: Store, request: ForkRequest): Promise<SessionDocument> {
  const read = await store.read(request.from);
  const last = read.records.length;
  if (!Number.isInteger(request.step) || request.step < 0 || request.step > last) {
    throw new UserError(`step ${request.step} is not a step of session ${request.from}: it has steps 0 to ${last} — troupe fork ${request.from.slice(0, 8)} lists them`);
  }
  if (read.doc.legacyEvents && read.doc.legacyEvents.length > 0) {
    throw new UserError(`session ${request.from} is in an old format: resume it once (troupe resume ${request.from.slice(0, 8)}) to upgrade it, then fork it`);
  }
  const { legacyEvents: _legacy, forkedFrom: _was, ...source } = read.doc;
  const base = { ...source.base, id: request.id };
  const doc: SessionDocument = {
    ...source,
    id: request.id,
    createdAt: request.now,
    updatedAt: request.now,
    base,
    checkpoint: { records: 0, lastSeq: 0, snapshot: base, memory: null, usage: null, transitions: {} },
    forkedFrom: { id: request.from, step: request.step },
  };
  const handle = await store.create(doc);
  try {
    for (const record of read.records.slice(0, request.step)) handle.append(carried(record, request.id));
  } finally {
    await handle.close();
  }
  return handle.doc;
}

import type { Migration } from './migration.js';

// v1 documents are read as loose JSON: each field is checked where it is used.
// biome-ignore lint/suspicious/noExplicitAny: untyped v1 JSON, narrowed field by field below
type Raw = Record<string, any>;

// v1 ended the process's hold on a session with `session_ended` even when the session went on
// (a headless run pausing, the user leaving); those are detachments, and say so after migration.
const DETACHED = new Set(['awaiting_user', 'user_left']);

function migrateEvents(events: Raw[]): Raw[] {
  return events.map((e, i) => {
    const at = typeof e.at === 'string' ? Date.parse(e.at) : e.at;
    const type = e.type === 'session_ended' && DETACHED.has(e.reason) ? 'session_detached' : e.type;
    return { ...e, type, seq: i + 1, at: Number.isFinite(at) ? at : 0 };
  });
}

const LOOP_KINDS = new Set(['agent', 'rework', 'pipeline']);

// The alternation v1's loop detector would find at the end of its transition list (system moves skipped).
function loopOf(transitions: Raw[]): Raw | null {
  let loop: Raw | null = null;
  for (const t of transitions) {
    if (t.kind === 'system') continue;
    if (!LOOP_KINDS.has(t.kind)) loop = null;
    else loop = { from: t.from, to: t.to, run: loop && loop.to === t.from && loop.from === t.to ? loop.run + 1 : 1 };
  }
  return loop;
}

function migrateSnapshot(s: Raw): Raw {
  const transitions: Raw[] = Array.isArray(s.transitions) ? s.transitions : [];
  const transcript: Raw[] = Array.isArray(s.transcript) ? s.transcript : [];
  const approvals: Raw[] = Array.isArray(s.approvals) ? s.approvals : [];
  const floor = typeof s.loopFloor === 'number' ? s.loopFloor : 0;
  const current = s.status === 'running' && s.inFlight ? s.inFlight.path : transitions[transitions.length - 1]?.to;
  return {
    version: 2,
    id: s.id,
    definition: s.team,
    brief: s.brief,
    mode: s.mode,
    status: s.status,
    configuration: current ? [current] : [],
    active: s.active,
    turn: s.turn,
    turnBudget: s.turnBudget,
    callSeq: s.callSeq,
    inFlight: s.inFlight,
    pending: s.pending,
    awaiting: s.awaiting,
    // v1 counted entries; from v2 on, answered turns are counted (an estimate is fine for old files).
    visits: s.visits,
    endReason: s.endReason,
    routing: {
      history: Array.isArray(s.history) ? s.history.slice(-64) : s.history,
      detours: s.detours,
      consultReturn: s.consultReturn,
      consultPause: s.consultPause ?? null,
      reworks: s.reworks,
      queue: s.queue,
      rulesFired: s.rulesFired,
      lastDecision: s.lastDecision,
      pipelineIndex: s.pipelineIndex,
      loop: loopOf(transitions.slice(floor)),
      recentTexts: transcript
        .filter((t) => t.kind !== 'note' && t.text !== '')
        .slice(-8)
        .map((t) => t.text),
      approved: approvals.filter((a) => a.status === 'APPROVED').length,
      sentBack: approvals.filter((a) => a.status !== 'APPROVED').length,
    },
  };
}

/**
 * Version 1 kept the whole event log and an unbounded snapshot (transcript, transitions, approvals) in
 * one document. Version 2 keeps a bounded snapshot and the events in an append-only journal: the
 * migrated snapshot becomes the journal's base (v1 stored no inputs to replay), and the events are
 * carried until the store writes them as the journal's first line.
 */
export const migrateV1: Migration = (raw) => {
  const snapshot = migrateSnapshot(raw.snapshot as Raw);
  const events = migrateEvents(Array.isArray(raw.events) ? (raw.events as Raw[]) : []);
  return {
    id: raw.id,
    team: raw.team,
    model: raw.model,
    mode: raw.mode,
    brief: raw.brief,
    createdAt: raw.createdAt,
    updatedAt: raw.updatedAt,
    base: snapshot,
    checkpoint: { records: events.length > 0 ? 1 : 0, lastSeq: events.length, snapshot, memory: raw.memory ?? null, usage: raw.usage ?? null },
    legacyEvents: events,
  };
};

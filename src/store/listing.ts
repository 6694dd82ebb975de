import type { SessionState } from '../engine/session.js';
import { isDemoLabel } from '../llm/demo-label.js';
import { transitionTableOf, type TransitionTable } from '../warming/transitions.js';
import type { JournalRecord, SessionDocument } from './session-file.js';

/** What `troupe sessions` and `troupe resume` need to know of a stored session, from its document alone. */
export interface SessionListing {
  id: string;
  team: string;
  /** The workflow it runs (absent for a team session, and in listings cached before it was recorded). */
  workflow?: string | null;
  brief: string;
  createdAt: string;
  updatedAt: string;
  status: 'idle' | 'running' | 'awaiting_user' | 'ended';
  /** Key of the state the session is in (the state a turn was running in). */
  state: string;
  turns: number;
  /** Why it waits, when it waits. */
  waiting: string | null;
  endReason: string | null;
  tokens: number;
  cost: number | null;
  /** It ran on the demo model, whose calls cost nothing (as the usage summary's `free`: the model its document records). */
  free: boolean;
  /** Who followed whom in it, as its journal ends (absent in sessions stored before they were kept). */
  transitions?: TransitionTable;
}

const STATUSES: ReadonlySet<unknown> = new Set(['idle', 'running', 'awaiting_user', 'ended']);
const isText = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isTable = (v: unknown): boolean =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((row) => row !== null && typeof row === 'object' && !Array.isArray(row) && Object.values(row).every(isCount));

/**
 * Whether a value read back from the listing cache (sessions/index.json, a file anyone can edit) has a listing's
 * shape, field by field: one that does not is made again from its session's files, never shown as it is.
 */
export function isSessionListing(v: unknown): v is SessionListing {
  if (v === null || typeof v !== 'object') return false;
  const l = v as Record<string, unknown>;
  return (
    isText(l.id) &&
    isText(l.team) &&
    (l.workflow === undefined || l.workflow === null || isText(l.workflow)) &&
    isText(l.brief) &&
    isText(l.createdAt) &&
    isText(l.updatedAt) &&
    STATUSES.has(l.status) &&
    isText(l.state) &&
    isCount(l.turns) &&
    (l.waiting === null || isText(l.waiting)) &&
    (l.endReason === null || isText(l.endReason)) &&
    isCount(l.tokens) &&
    (l.cost === null || isCount(l.cost)) &&
    // Required: a listing cached before it was recorded is made again, not shown as priced.
    typeof l.free === 'boolean' &&
    (l.transitions === undefined || isTable(l.transitions))
  );
}

/** The session's usage totals a listing shows (the meter's `session` totals, as a checkpoint keeps them). */
export interface ListedUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  unpricedCalls: number;
}

/** A session as its journal ends, for its listing: its state (null: the lines do not fit its machine), its usage totals and learned transitions. */
export interface SessionAtEnd {
  state: SessionState | null;
  usage: ListedUsage;
  /** Null when its checkpoint keeps none (a session stored before they were kept) or they cannot be folded. */
  transitions: TransitionTable | null;
}

/**
 * Folds a stored session's journal lines after its checkpoint over the checkpoint's state, usage totals and
 * transitions, in one pass (see foldStoredTail): the store is given one, it knows no engine. `machines` reads the
 * journal's machine lines before the tail (the machine the tail's steps run), asked for only when it steps one.
 */
export type TailFold = (doc: SessionDocument, tail: readonly JournalRecord[], machines?: () => readonly JournalRecord[]) => Promise<SessionAtEnd>;

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

/** A checkpoint's usage totals as the listing reads them (a missing or damaged slot counts as nothing used). */
export function checkpointUsage(doc: SessionDocument): ListedUsage {
  const u = (doc.checkpoint.usage as { session?: Record<string, unknown> } | null | undefined)?.session;
  return { calls: count(u?.calls), promptTokens: count(u?.promptTokens), completionTokens: count(u?.completionTokens), cost: count(u?.cost), unpricedCalls: count(u?.unpricedCalls) };
}

/** Adds one stored event to usage totals when it is a `usage` event (its own cost: null for an unpriced call); true when it was one. */
export function addUsageEvent(into: ListedUsage, e: { type: string; [k: string]: unknown }): boolean {
  if (e.type !== 'usage') return false;
  into.calls += 1;
  into.promptTokens += count(e.prompt_tokens);
  into.completionTokens += count(e.completion_tokens);
  if (typeof e.cost === 'number' && Number.isFinite(e.cost)) into.cost += Math.max(0, e.cost);
  else into.unpricedCalls += 1;
  return true;
}

/** Why a session waits, when it waits: the code of what it waits for. */
export function waitingOf(s: { status: SessionListing['status']; awaiting?: { code: string } | null | undefined }): string | null {
  return s.status === 'awaiting_user' ? (s.awaiting?.code ?? 'user') : null;
}

/**
 * The listing of a session document: as its journal ends when given (see TailFold), else its latest checkpoint's
 * state, usage and transitions (each fact of `end` left out is the checkpoint's).
 */
export function listingOf(doc: SessionDocument, end: { state?: SessionState | null | undefined; usage?: ListedUsage; transitions?: TransitionTable | null } = {}): SessionListing {
  const s = end.state ?? doc.checkpoint.snapshot;
  const usage = end.usage ?? checkpointUsage(doc);
  const priced = usage.calls - usage.unpricedCalls;
  const transitions = end.transitions !== undefined ? end.transitions : transitionTableOf(doc.checkpoint.transitions);
  return {
    id: doc.id,
    team: doc.team.name,
    workflow: doc.workflow?.name ?? null,
    brief: doc.brief || s.brief,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    status: s.status,
    state: s.status === 'running' && s.inFlight ? s.inFlight.path : s.status === 'idle' ? '—' : (s.configuration[0] ?? '—'),
    turns: s.turn,
    waiting: waitingOf(s),
    endReason: s.endReason,
    tokens: usage.promptTokens + usage.completionTokens,
    cost: priced > 0 ? usage.cost : null,
    free: isDemoLabel(doc.model),
    ...(transitions ? { transitions } : {}),
  };
}

import type { SessionState } from '../engine/session.js';
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
  /** Who followed whom in it, as its checkpoint keeps them (absent in sessions stored before they were kept). */
  transitions?: TransitionTable;
}

interface UsageLike {
  session?: { promptTokens?: number; completionTokens?: number; cost?: number; calls?: number; unpricedCalls?: number };
}

/**
 * Folds a stored session's journal lines after its checkpoint over the checkpoint's state (the state at the
 * journal's end), or answers null when it cannot (its team is gone): the store is given one, it knows no engine.
 */
export type TailFold = (doc: SessionDocument, tail: readonly JournalRecord[]) => Promise<SessionState | null>;

/** The listing of a session document: its state at the journal's end when given (see TailFold), else its latest checkpoint's. */
export function listingOf(doc: SessionDocument, snapshot: SessionState = doc.checkpoint.snapshot): SessionListing {
  const s = snapshot;
  const usage = (doc.checkpoint.usage as UsageLike | null)?.session;
  const priced = usage ? (usage.calls ?? 0) - (usage.unpricedCalls ?? 0) : 0;
  const transitions = transitionTableOf(doc.checkpoint.transitions);
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
    waiting: s.status === 'awaiting_user' ? (s.awaiting?.code ?? 'user') : null,
    endReason: s.endReason,
    tokens: usage ? (usage.promptTokens ?? 0) + (usage.completionTokens ?? 0) : 0,
    cost: priced > 0 ? (usage?.cost ?? 0) : null,
    ...(transitions ? { transitions } : {}),
  };
}

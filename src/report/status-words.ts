import { waitingOf, type SessionListing } from '../store/listing.js';

/** What a session's status in words is made of: its status, why it waits, why it ended. */
export type StatusFacts = Pick<SessionListing, 'status' | 'waiting' | 'endReason'>;

/** Who runs a session now: the server (or cluster) answering ('live'), another process (its pid), or nobody (null). */
export type StatusHolder = 'live' | number | null;

/**
 * A session's status in words, the one source for `troupe sessions`, `troupe show` and both backends' list and
 * view: running with nobody running it is "interrupted" (its process stopped mid-turn).
 */
export function statusWords(s: StatusFacts, holder: StatusHolder): string {
  if (typeof holder === 'number') return `open (pid ${holder})`;
  if (s.status === 'running') return holder === 'live' ? 'running' : 'interrupted';
  if (s.status === 'awaiting_user') return `waiting: ${s.waiting ?? 'user'}`;
  if (s.status === 'ended') return `ended: ${s.endReason ?? ''}`;
  return 'not started';
}

/** The facts of an engine state (or a Restate head's), as statusWords reads them. */
export function statusFactsOf(s: { status: SessionListing['status']; awaiting?: { code: string } | null | undefined; endReason?: string | null | undefined }): StatusFacts {
  return { status: s.status, waiting: waitingOf(s), endReason: s.endReason ?? null };
}

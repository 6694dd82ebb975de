import type { SessionState } from '../engine/session.js';
import type { TroupeSession } from '../session/troupe-session.js';
import type { SessionDocument } from '../store/session-file.js';

/** What the API's view of a session takes besides the engine state: the backend knows these. */
export interface ViewFacts {
  kind: string;
  /** Whether the session is live on the server (it takes input without being reopened). */
  hosted: boolean;
  lastEventSeq: number;
}

/** A session as the API shows it, from its engine state (both backends answer with this shape). */
export function viewOf(s: SessionState, facts: ViewFacts): Record<string, unknown> {
  return {
    id: s.id,
    definition: s.definition,
    kind: facts.kind,
    status: s.status,
    hosted: facts.hosted,
    brief: s.brief,
    turn: s.turn,
    state: s.configuration,
    active: s.active,
    awaiting: s.awaiting ? { code: s.awaiting.code, reason: s.awaiting.reason } : null,
    endReason: s.endReason,
    lastEventSeq: facts.lastEventSeq,
  };
}

/** A session as the embedded backend shows it: from the running session, or from its stored checkpoint. */
export function sessionView(input: { session: TroupeSession } | { doc: SessionDocument; lastSeq: number }): Record<string, unknown> {
  if ('session' in input) {
    return viewOf(input.session.getSnapshot(), { kind: input.session.def.kind, hosted: true, lastEventSeq: input.session.recent().at(-1)?.seq ?? 0 });
  }
  return viewOf(input.doc.checkpoint.snapshot, { kind: input.doc.workflow ? 'workflow' : 'team', hosted: false, lastEventSeq: input.lastSeq });
}

import type { SessionState } from '../engine/session.js';
import type { TroupeSession } from '../session/troupe-session.js';
import type { SessionDocument } from '../store/session-file.js';

/** A session as the API shows it: from the running session, or from its stored checkpoint. */
export function sessionView(input: { session: TroupeSession } | { doc: SessionDocument; lastSeq: number }): Record<string, unknown> {
  const s: SessionState = 'session' in input ? input.session.getSnapshot() : input.doc.checkpoint.snapshot;
  const kind = 'session' in input ? input.session.def.kind : input.doc.workflow ? 'workflow' : 'team';
  const lastEventSeq = 'session' in input ? (input.session.recent().at(-1)?.seq ?? 0) : input.lastSeq;
  return {
    id: s.id,
    definition: s.definition,
    kind,
    status: s.status,
    hosted: 'session' in input,
    brief: s.brief,
    turn: s.turn,
    state: s.configuration,
    active: s.active,
    awaiting: s.awaiting ? { code: s.awaiting.code, reason: s.awaiting.reason } : null,
    endReason: s.endReason,
    lastEventSeq,
  };
}

import type { SessionState } from '../../engine/session.js';

/**
 * A Restate-hosted session as the API shows it: the same fields as the embedded backend's view
 * (`serve/view.ts`). `hosted` is true while the session is not over (Restate keeps it live on the cluster).
 */
export function restateView(s: SessionState, lastEventSeq: number): Record<string, unknown> {
  return {
    id: s.id,
    definition: s.definition,
    kind: 'team',
    status: s.status,
    hosted: s.status !== 'ended',
    brief: s.brief,
    turn: s.turn,
    state: s.configuration,
    active: s.active,
    awaiting: s.awaiting ? { code: s.awaiting.code, reason: s.awaiting.reason } : null,
    endReason: s.endReason,
    lastEventSeq,
  };
}

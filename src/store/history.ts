import type { Decision } from '../arbiter/proposal.js';
import type { TroupeEvent } from '../engine/event-map.js';

/** A transition of a session with the arbitration that chose it (when one did). */
export interface HistoryEntry {
  at: string;
  from: string;
  to: string;
  kind: string;
  reason: string;
  decision: Decision | null;
}

/** The transitions in a session's event log, each paired with the arbitration just before it (for show and `!history`). */
export function transitionHistory(events: TroupeEvent[]): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  let decision: Decision | null = null;
  for (const e of events) {
    if (e.type === 'arbitration') decision = e.decision;
    if (e.type === 'transition') {
      out.push({ at: e.at, from: e.from, to: e.to, kind: e.kind, reason: e.reason, decision });
      decision = null;
    }
  }
  return out;
}

/** One line describing a decision: every proposal with its score or drop reason, then why the winner won. */
export function decisionLine(decision: Decision, name: (id: string) => string = (id) => id): string {
  const shown = decision.proposals.map((p) => {
    const who = p.targetId ? name(p.targetId) : p.target;
    if (p.status === 'dropped') return `${who} dropped (${p.dropReason})`;
    const score = p.score === null ? '' : ` ${p.score.toFixed(2)}`;
    return `${who}${score} [${p.source}]${p.status === 'winner' ? ' ✓' : ''}`;
  });
  return `${shown.join(', ')} — ${decision.why}`;
}

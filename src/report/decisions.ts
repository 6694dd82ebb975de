import type { Decision } from '../arbiter/proposal.js';
import type { Directive } from '../directive/schema.js';
import type { TroupeEvent } from '../engine/event-map.js';

/** A transition of a session with the arbitration that chose it (when one did). */
export interface HistoryEntry {
  at: number;
  from: string;
  to: string;
  kind: string;
  reason: string;
  decision: Decision | null;
}

/** The transitions in an event log, each paired with the arbitration just before it. */
export function transitionHistory(events: readonly TroupeEvent[]): HistoryEntry[] {
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

/** A score for display: two decimals, no float noise (0.6699999999999999 -> 0.67). */
export function formatScore(score: number): string {
  return score.toFixed(2);
}

/** A proposal as every view shows it: who, its score (or why it was dropped), where it came from, whether it won. */
export interface ShownProposal {
  who: string;
  score: string;
  source: string;
  status: 'winner' | 'lost' | 'dropped';
  dropReason: string;
}

/** The proposals of a decision, ready to show (the one formatting of them; views only style it). */
export function shownProposals(decision: Decision, name: (id: string) => string = (id) => id): ShownProposal[] {
  return decision.proposals.map((p) => ({
    who: p.targetId ? name(p.targetId) : p.target,
    score: p.score === null ? '' : formatScore(p.score),
    source: p.source,
    status: p.status === 'winner' ? 'winner' : p.status === 'dropped' ? 'dropped' : 'lost',
    dropReason: p.dropReason ?? '',
  }));
}

/** One line describing a decision: every proposal with its score or drop reason, then why the winner won. */
export function decisionLine(decision: Decision, name: (id: string) => string = (id) => id): string {
  const shown = shownProposals(decision, name).map((p) =>
    p.status === 'dropped' ? `${p.who} dropped (${p.dropReason})` : `${p.who}${p.score ? ` ${p.score}` : ''} [${p.source}]${p.status === 'winner' ? ' ✓' : ''}`,
  );
  return `${shown.join(', ')} — ${decision.why}`;
}

/** A short tag for a directive: `HANDOFF_TO_AGENT → cfo`, `REQUEST_REWORK: reason`. */
export function directiveTag(d: Directive): string {
  const parts: string[] = [d.transition];
  if (d.next_agent) parts.push(`→ ${d.next_agent}`);
  if (d.rework_reason) parts.push(`: ${d.rework_reason}`);
  return parts.join(' ').replace(' :', ':');
}

import type { SessionState } from '../engine/session.js';
import type { Memory } from './memory.js';

/**
 * Rebuilds a memory from a session's transcript and approval chain, in the order they happened.
 * Used when a stored session has no saved memory (an older file, or memory switched on later),
 * so a resumed session keeps its brief, its turns and its pinned decisions.
 */
export function seedMemory(memory: Memory, session: SessionState): void {
  const approvals = [...session.approvals];
  const flushApprovals = (upTo: number) => {
    while (approvals.length > 0 && approvals[0]!.turn <= upTo) memory.recordApproval(approvals.shift()!);
  };
  if (session.brief && !session.transcript.some((e) => e.kind === 'user' && e.text === session.brief)) memory.recordUser(session.brief);
  for (const entry of session.transcript) {
    flushApprovals(entry.turn - 1);
    if (entry.kind === 'user') memory.recordUser(entry.text);
    if (entry.kind !== 'agent' || entry.status !== 'ok' || !entry.persona) continue;
    const turnId = `seed-${entry.seq}`;
    memory.recordAgent({ turnId, persona: entry.persona, text: entry.text, turn: entry.turn });
    if (entry.directive) memory.recordDirective({ turnId, persona: entry.persona, directive: entry.directive });
  }
  flushApprovals(Number.POSITIVE_INFINITY);
}

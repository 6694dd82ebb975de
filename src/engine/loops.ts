import type { SessionState, TransitionRecord } from './session.js';

const LOOP_KINDS: ReadonlySet<TransitionRecord['kind']> = new Set(['agent', 'rework', 'pipeline']);

/**
 * Counts how many of the latest persona-to-persona handoffs (plus the proposed one) alternate
 * between the same two states, A->B, B->A, A->B... Detours, consults and user moves break the run.
 */
export function alternationLength(s: SessionState, nextFrom: string, nextTo: string): number {
  let run = 1;
  let later = { from: nextFrom, to: nextTo };
  // Walk back only as far as the alternation holds, so the cost does not grow with the session.
  for (let i = s.transitions.length - 1; i >= s.loopFloor; i--) {
    const t = s.transitions[i]!;
    if (t.kind === 'system') continue;
    if (!LOOP_KINDS.has(t.kind) || t.to !== later.from || t.from !== later.to) break;
    run++;
    later = t;
  }
  return run;
}

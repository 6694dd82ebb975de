import type { SessionState, TransitionRecord } from './session.js';

const LOOP_KINDS: ReadonlySet<TransitionRecord['kind']> = new Set(['agent', 'rework', 'pipeline']);

/**
 * Counts how many of the latest persona-to-persona handoffs (plus the proposed one) alternate
 * between the same two states, A->B, B->A, A->B... Detours, consults and user moves break the run.
 */
export function alternationLength(s: SessionState, nextFrom: string, nextTo: string): number {
  const hops: { from: string; to: string }[] = [];
  for (let i = s.transitions.length - 1; i >= s.loopFloor; i--) {
    const t = s.transitions[i]!;
    if (t.kind === 'system') continue;
    if (!LOOP_KINDS.has(t.kind)) break;
    hops.unshift(t);
  }
  hops.push({ from: nextFrom, to: nextTo });
  let run = 1;
  for (let i = hops.length - 1; i > 0; i--) {
    const a = hops[i]!;
    const b = hops[i - 1]!;
    if (a.from === b.to && a.to === b.from) run++;
    else break;
  }
  return run;
}

import type { TeamRouting } from './state.js';

const LOOP_KINDS: ReadonlySet<string> = new Set(['agent', 'rework', 'pipeline']);

/**
 * Counts how many of the latest persona-to-persona handoffs (plus the proposed one) alternate between
 * the same two states, A->B, B->A, A->B... Detours, consults and user moves break the run.
 */
export function alternationLength(r: TeamRouting, nextFrom: string, nextTo: string): number {
  let run = 1;
  let later = { from: nextFrom, to: nextTo };
  for (let i = r.loopTrail.length - 1; i >= 0; i--) {
    const t = r.loopTrail[i]!;
    if (!LOOP_KINDS.has(t.kind) || t.to !== later.from || t.from !== later.to) break;
    run++;
    later = t;
  }
  return run;
}

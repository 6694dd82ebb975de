import type { TransitionRecord } from '../engine/moves.js';
import type { TeamRouting } from './state.js';

const LOOP_KINDS: ReadonlySet<string> = new Set(['agent', 'rework', 'pipeline']);

/**
 * Counts how many of the latest persona-to-persona handoffs (plus the proposed one) alternate between
 * the same two states, A->B, B->A, A->B... Detours, consults and user moves break the run.
 */
export function alternationLength(r: TeamRouting, nextFrom: string, nextTo: string): number {
  const last = r.loop;
  return last && last.to === nextFrom && last.from === nextTo ? last.run + 1 : 1;
}

/** The alternation after a move: one longer when the move reverses the last one, a new run otherwise. */
export function nextLoop(loop: TeamRouting['loop'], move: TransitionRecord): TeamRouting['loop'] {
  if (!LOOP_KINDS.has(move.kind)) return null;
  const run = loop && loop.to === move.from && loop.from === move.to ? loop.run + 1 : 1;
  return { from: move.from, to: move.to, run };
}

import type { MemoryConfig } from '../config/team-schema.js';
import type { RawTurn, SummaryContent } from './memory-state.js';
import { gistOf } from './pinned-fit.js';

/** Lines a summary made without a model keeps per list (the newest). */
const LOCAL_LINES = 12;

/**
 * How many raw turns memory keeps while its summaries keep failing (a server that cannot do JSON mode,
 * an outage): past this the oldest are folded locally, so memory and every checkpoint stay bounded.
 */
export function rawCap(config: MemoryConfig): number {
  return Math.max(50, config.keep_recent + 4 * config.compress_every);
}

/** A summary made without a model: each turn as its author and first sentence (decisions apart), the newest lines kept. */
export function localSummary(turns: readonly RawTurn[]): SummaryContent {
  const line = (t: RawTurn) => `${t.author}: ${gistOf(t.text)}`;
  const decided = turns.filter((t) => t.type !== 'general').map(line);
  const discussed = turns.filter((t) => t.type === 'general').map(line);
  return { decisions: decided.slice(-LOCAL_LINES), discussions: discussed.slice(-LOCAL_LINES), pending: [] };
}

/** Several summaries as one, without a model: their lists joined, the newest lines kept. */
export function mergeLocally(contents: readonly SummaryContent[]): SummaryContent {
  const join = (pick: (c: SummaryContent) => string[]) => contents.flatMap(pick).slice(-LOCAL_LINES);
  return { decisions: join((c) => c.decisions), discussions: join((c) => c.discussions), pending: join((c) => c.pending) };
}

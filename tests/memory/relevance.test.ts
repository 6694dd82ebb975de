import { describe, expect, it } from 'vitest';
import { MemorySchema } from '../../src/config/team-schema.js';
import { Memory } from '../../src/memory/memory.js';
import { emptyMemoryState, type Summary } from '../../src/memory/memory-state.js';
import { rankByQuery, terms } from '../../src/memory/relevance.js';

const summary = (id: number, decisions: string[]): Summary => ({ id, first: id * 5, last: id * 5 + 4, count: 5, parts: 1, tokens: 10, decisions, discussions: [], pending: [] });

describe('rankByQuery', () => {
  it('ranks documents by shared rare terms, newer first on ties', () => {
    const docs = ['the budget for the art team', 'art style is painterly', 'netcode and servers', 'art style again'];
    expect(rankByQuery('what did we decide about netcode servers?', docs)[0]!.index).toBe(2);
    expect(rankByQuery('budget', docs)[0]!.index).toBe(0);
    expect(rankByQuery('weather', docs).map((r) => r.index)).toEqual([3, 2, 1, 0]);
  });

  it('ignores case and stop words', () => {
    expect(terms('The Lighthouse and THE lamp')).toEqual(['lighthouse', 'lamp']);
  });
});

describe('Memory.getRelevantContext', () => {
  const state = {
    ...emptyMemoryState(),
    summaries: [summary(1, ['Co-op deferred to an update']), summary(2, ['Art style is painterly']), summary(3, ['Launch at month 14'])],
    pinned: [{ kind: 'decision' as const, turn: 2, by: 'ceo', text: 'Single-player first', repeats: 1 }],
    raw: [1, 2, 3].map((n) => ({ id: n, turn: 20 + n, author: 'ceo', type: 'general' as const, text: `recent ${n}`, tokens: 2 })),
  };
  const memory = new Memory({ config: MemorySchema.parse({ keep_recent: 2 }), state });

  it('returns pinned decisions, recent raw turns and the best-matching summaries', () => {
    const ctx = memory.getRelevantContext('when do we do co-op?', 2);
    expect(ctx.key_decisions).toEqual(['[turn 2] ceo: Single-player first']);
    expect(ctx.recent_context).toEqual(['recent 2', 'recent 3']);
    expect(ctx.compressed_history.map((s) => s.id)).toEqual([1]);
    expect(ctx.compressed_history[0]!.score).toBeGreaterThan(0);
  });

  it('falls back to the newest summaries when nothing matches', () => {
    expect(memory.getRelevantContext('zebra', 2).compressed_history.map((s) => s.id)).toEqual([3, 2]);
  });
});

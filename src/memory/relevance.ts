const STOP = new Set(
  'the and for are but not you your with this that from have has had was were will would should could can our their they them its into about what which when where who how all any each more most other some such than too very just also then there here been being over under only own same off out'.split(
    ' ',
  ),
);

/** Lower-case content words of a text (3+ letters, no stop words). */
export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'-]{2,}/gu) ?? []).filter((w) => !STOP.has(w));
}

/** A scored document: its index in the input and its lexical score against the query. */
export interface Ranked {
  index: number;
  score: number;
}

/**
 * Ranks documents by a BM25-style lexical score against the query (no embeddings, no network).
 * Ties go to the later document, since newer context is usually the more relevant.
 */
export function rankByQuery(query: string, docs: readonly string[]): Ranked[] {
  const q = [...new Set(terms(query))];
  const bags = docs.map((d) => {
    const bag = new Map<string, number>();
    for (const t of terms(d)) bag.set(t, (bag.get(t) ?? 0) + 1);
    return bag;
  });
  const avgLen = bags.reduce((n, b) => n + [...b.values()].reduce((x, y) => x + y, 0), 0) / Math.max(1, bags.length) || 1;
  const k1 = 1.2;
  const b = 0.75;
  const ranked = bags.map((bag, index) => {
    const len = [...bag.values()].reduce((x, y) => x + y, 0);
    let score = 0;
    for (const term of q) {
      const tf = bag.get(term) ?? 0;
      if (tf === 0) continue;
      const df = bags.filter((other) => other.has(term)).length;
      const idf = Math.log(1 + (bags.length - df + 0.5) / (df + 0.5));
      score += idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avgLen)));
    }
    return { index, score };
  });
  return ranked.sort((x, y) => y.score - x.score || y.index - x.index);
}

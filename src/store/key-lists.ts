/**
 * Of the key lists `candidates` (indexes into `lists`), the one with list `k`'s keys before position `at` and `key`
 * at `at` (for null: ending there), or -1. How a row's layout is followed while an object's keys are read: it
 * starts at a likely list and moves to another sharing the keys so far when the next key is not the list's.
 */
export function keyListAfter(lists: readonly (readonly string[])[], candidates: readonly number[], k: number, at: number, key: string | null): number {
  const shape = lists[k]!;
  for (const other of candidates) {
    const candidate = lists[other]!;
    if (key === null ? candidate.length !== at : candidate[at] !== key) continue;
    let same = candidate.length >= at;
    for (let j = 0; j < at && same; j++) same = candidate[j] === shape[j];
    if (same) return other;
  }
  return -1;
}

/** A compressed stretch of conversation, as the rolling memory keeps it. */
export interface MemoryViewSummary {
  decisions: string[];
  discussions: string[];
  pending: string[];
}

/** What the memory holds now: decisions pinned verbatim and the summaries. */
export interface MemoryView {
  pinned: string[];
  /** Older pins moved out of memory to bound it (the session's journal keeps each one). */
  moved?: { count: number; first: number; last: number } | undefined;
  summaries: MemoryViewSummary[];
}

/** Reads the memory on demand; absent when the session runs without summarising memory. */
export type MemorySource = () => MemoryView;

/** Lines for `!memory`: pinned decisions then each summary, or a plain "not enabled". */
export function memoryLines(source: MemorySource | undefined): string[] {
  if (!source) return ['memory not enabled: every prompt carries the full history'];
  const { pinned, summaries, moved } = source();
  const lines = [`pinned decisions (${pinned.length}):`, ...(pinned.length ? pinned.map((p) => `  ✔ ${p}`) : ['  none yet'])];
  if (moved) lines.splice(1, 0, `  (${moved.count} earlier, turns ${moved.first}-${moved.last}, moved out of memory to bound it: troupe show <session> lists every one)`);
  lines.push(`summaries (${summaries.length}):`);
  if (summaries.length === 0) lines.push('  none yet (older turns are compressed as the session grows)');
  summaries.forEach((s, i) => {
    lines.push(`  #${i + 1}`);
    for (const d of s.decisions) lines.push(`    decision: ${d}`);
    for (const d of s.discussions) lines.push(`    discussed: ${d}`);
    for (const d of s.pending) lines.push(`    pending: ${d}`);
  });
  return lines;
}

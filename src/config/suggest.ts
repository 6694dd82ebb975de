import { distance } from 'fastest-levenshtein';

/** The closest of `options` to a mistyped word, when it is close enough to be what was meant (null otherwise). */
export function didYouMean(word: string, options: readonly string[]): string | null {
  const wanted = word.toLowerCase();
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const option of options) {
    const d = distance(wanted, option.toLowerCase());
    if (d < bestDistance) {
      best = option;
      bestDistance = d;
    }
  }
  // Up to two edits, and never more than half the word: "!aprove" finds approve, "!x" finds nothing.
  return best !== null && bestDistance <= Math.min(2, Math.floor(wanted.length / 2)) ? best : null;
}

/** Where a JSON object candidate lies in a text: `[start, end)`, and whether it sat in a ``` fence. */
export interface JsonSpan {
  start: number;
  end: number;
  /** The fence around it (its ``` lines included), when the candidate is a fenced block's body. */
  fence?: { start: number; end: number };
}

const FENCE = '```';

/** The bodies of ``` fenced blocks (an optional `json` tag dropped), found in one pass over the text. */
function fencedSpans(text: string): JsonSpan[] {
  const spans: JsonSpan[] = [];
  let open = text.indexOf(FENCE);
  while (open >= 0) {
    const close = text.indexOf(FENCE, open + FENCE.length);
    if (close < 0) break;
    let start = open + FENCE.length;
    if (text.startsWith('json', start)) start += 4;
    spans.push({ start, end: close, fence: { start: open, end: close + FENCE.length } });
    open = text.indexOf(FENCE, close + FENCE.length);
  }
  return spans;
}

/** One scan from `from`: the top-level balanced spans, those inside braces that never closed, and where the scan ended. */
function scanBraces(text: string, from: number): { spans: JsonSpan[]; firstUnclosed: number; endedInString: boolean } {
  const spans: JsonSpan[] = [];
  // Open braces not yet closed; for each, the candidates found inside it so far (kept if it never closes).
  const open: number[] = [];
  const inside: JsonSpan[][] = [];
  let inString = false;
  let escaped = false;
  for (let i = from; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === 0x5c) escaped = true;
      else if (ch === 0x22) inString = false;
      continue;
    }
    // Outside every object a quote is prose, not the start of a string.
    if (ch === 0x22 && open.length > 0) inString = true;
    else if (ch === 0x7b) {
      open.push(i);
      inside.push([]);
    } else if (ch === 0x7d && open.length > 0) {
      const start = open.pop()!;
      inside.pop();
      const span = { start, end: i + 1 };
      if (open.length === 0) spans.push(span);
      else inside[inside.length - 1]!.push(span);
    }
  }
  // Inside braces that never closed, what did close are candidates of their own.
  for (const found of inside) spans.push(...found);
  return { spans, firstUnclosed: open[0] ?? -1, endedInString: inString };
}

// A stray `{` followed by an odd quote in prose puts the scan inside a "string" to the end; a fresh
// scan after that brace finds what follows. Bounded, so the whole extraction stays linear.
const MAX_RESCANS = 3;

/**
 * Balanced `{…}` objects in a single left-to-right pass (braces inside JSON strings ignored), with
 * the same candidates as trying every `{` as a start: objects nested in an object are not separate
 * candidates, and a `{` that never closes is skipped so the objects after it still count.
 */
function braceSpans(text: string): JsonSpan[] {
  const kept: JsonSpan[] = [];
  let from = 0;
  for (let pass = 0; ; pass++) {
    const scan = scanBraces(text, from);
    if (scan.firstUnclosed < 0 || !scan.endedInString || pass === MAX_RESCANS) {
      kept.push(...scan.spans);
      break;
    }
    kept.push(...scan.spans.filter((s) => s.end <= scan.firstUnclosed));
    from = scan.firstUnclosed + 1;
  }
  return kept.sort((a, b) => a.start - b.start);
}

/** Every JSON object candidate in free text: fenced block bodies, then balanced brace spans (those inside a fence know it), each in text order. */
export function jsonCandidates(text: string): JsonSpan[] {
  const fences = fencedSpans(text);
  const braces = braceSpans(text);
  let f = 0;
  for (const span of braces) {
    while (f < fences.length && fences[f]!.end < span.start) f++;
    const fence = fences[f];
    if (fence && fence.start <= span.start && span.end <= fence.end) span.fence = fence.fence!;
  }
  return [...fences, ...braces];
}

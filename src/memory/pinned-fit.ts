import type { MovedPins, Pinned } from './memory-state.js';
import { oneLine, pinnedLine, type NameOf } from './render.js';
import { PieceTokens } from './piece-tokens.js';
import { countTokens, tokenBound } from './tokens.js';

/** Longest pinned item in a prompt, in characters (a 20 KB key decision is cut here; `!memory` keeps it whole). */
export const PINNED_ITEM_MAX_CHARS = 600;
/** A condensed pinned item: its first sentence, at most this long. */
export const PINNED_GIST_MAX_CHARS = 120;
/** Share of the prompt budget the pinned block may take; the rest is for the persona, the turns and the inbox. */
export const PINNED_BUDGET_SHARE = 0.4;

/** Heading of the pinned block when every item is shown verbatim (within the per-item cap). */
export const PINNED_HEADER = '## Pinned decisions (verbatim, binding for everyone)';
const CONDENSED_HEADER = '## Pinned decisions (binding for everyone)';

/** The pinned block of a prompt and what had to give for it to fit. */
export interface PinnedFit {
  /** The block ('' when nothing is pinned). */
  text: string;
  /** UTF-8 bytes of the block: a bound on its tokens (every token is at least one byte), known without counting. */
  bytes: number;
  /** Tokens of the block, exactly (counted when first read: a prompt whose bound is within its budget never reads it). */
  readonly tokens: number;
  /** Tokens the block would take with every item verbatim (within the per-item cap). */
  readonly fullTokens: number;
  /** Items cut at PINNED_ITEM_MAX_CHARS. */
  clipped: number;
  /** Oldest items shown as their gist. */
  condensed: number;
  /** Oldest items left out (only when even the gists do not fit). */
  omitted: number;
  /** Pinned items the block covers. */
  count: number;
  /** Tokens of every covered item's verbatim line with its newline (counted when first read). */
  readonly sumNl: number;
  /** Earlier pins moved out of memory (named by one line after the heading). */
  moved: number;
  /** A verbatim block's lines, in order, and their text joined (so the next block extends it); absent when condensed. */
  items?: readonly PinnedLine[];
  body?: string;
  /** UTF-8 bytes of `body`. */
  bodyBytes?: number;
}

/** The line that stands for pins moved out of memory (they stay in the session's journal). */
export function movedLine(m: MovedPins): string {
  const turns = m.first === m.last ? `turn ${m.first}` : `turns ${m.first}-${m.last}`;
  return `(${m.count} earlier pinned item${m.count === 1 ? '' : 's'}, ${turns}, kept in the session's journal: still binding; troupe show lists them)`;
}

/** Cuts text at a word boundary below `max` characters, marking the cut. */
export function clipText(text: string, max: number): string {
  return clipFlat(oneLine(text), max);
}

// clipText of text already flattened (one line, no runs of whitespace, trimmed).
function clipFlat(flat: string, max: number): string {
  if (flat.length <= max) return flat;
  const cut = flat.lastIndexOf(' ', max - 1);
  return `${flat.slice(0, cut > max / 2 ? cut : max - 1).trimEnd()}…`;
}

/** The gist of a pinned text: its first sentence, short. */
export function gistOf(text: string): string {
  const flat = oneLine(text);
  const end = flat.search(/[.!?](\s|$)/);
  return clipText(end > 0 ? flat.slice(0, end + 1) : flat, PINNED_GIST_MAX_CHARS);
}

// A line that ends in a letter or digit: o200k's pre-tokenizer always makes the newline after it a token of its own.
const ENDS_IN_WORD = /[\p{L}\p{N}]$/u;

/**
 * A pinned item rendered both ways, with exact counts (each made once, when first read): followed by a
 * newline, and as the block's last line. The gist (for condensing) is rendered only when a block needs it.
 * Its UTF-8 bytes are known at once: a block whose bytes are within its share is never counted.
 */
class Lines {
  private counts: Partial<Record<'fullNl' | 'fullEnd' | 'gistNl' | 'gistEnd', number>> = {};
  private gistLine: string | null = null;
  /** UTF-8 bytes of the verbatim line (without a newline): a bound on its tokens. */
  readonly fullBytes: number;

  constructor(
    private readonly pinned: Pinned,
    private readonly nameOf: NameOf,
    readonly full: string,
    readonly clipped: boolean,
    /** The line's count when its pieces give it (null: it is tokenized). */
    private readonly known: () => number | null = () => null,
  ) {
    this.fullBytes = tokenBound(full);
  }

  get fullNl(): number {
    if (this.counts.fullNl === undefined) {
      // "word" + "\n" is the word's tokens and one for the newline: no second count of the line.
      const endsInWord = ENDS_IN_WORD.test(this.full);
      const known = endsInWord ? this.known() : null;
      this.counts.fullNl = known !== null ? known + 1 : countTokens(`${this.full}\n`);
      if (endsInWord) this.counts.fullEnd = this.counts.fullNl - 1;
    }
    return this.counts.fullNl;
  }

  get gist(): string {
    this.gistLine ??= pinnedLine({ ...this.pinned, text: gistOf(this.pinned.text) }, this.nameOf);
    return this.gistLine;
  }

  get fullEnd(): number {
    if (this.counts.fullEnd === undefined && ENDS_IN_WORD.test(this.full)) return this.fullNl - 1;
    this.counts.fullEnd ??= countTokens(this.full);
    return this.counts.fullEnd;
  }

  get gistNl(): number {
    this.counts.gistNl ??= countTokens(`${this.gist}\n`);
    return this.counts.gistNl;
  }

  get gistEnd(): number {
    this.counts.gistEnd ??= countTokens(this.gist);
    return this.counts.gistEnd;
  }
}

/** A pinned item's lines and their counts. */
export type PinnedLine = Lines;

/** Renders and counts pinned items once each (pins never change once pinned). */
export class PinnedLines {
  private readonly cache = new WeakMap<Pinned, Lines>();
  private readonly pieces = new PieceTokens();

  constructor(private readonly nameOf: NameOf) {}

  /** The verbatim (capped) and gist lines of an item. */
  of(p: Pinned): Lines {
    let lines = this.cache.get(p);
    if (!lines) {
      const flat = oneLine(p.text);
      const clippedText = clipFlat(flat, PINNED_ITEM_MAX_CHARS);
      const full = pinnedLine({ ...p, text: clippedText }, this.nameOf);
      lines = new Lines(p, this.nameOf, full, clippedText !== flat, () => this.approvalTokens(p, full));
      this.cache.set(p, lines);
    }
    return lines;
  }

  /**
   * An approval's line ("- CEO approved CFO's work") counted from two pieces cached per name: o200k always
   * splits before the space of " approved" when the name before it ends in anything but whitespace, so a
   * new pair of known names is not tokenized. Null for other pins (their text is new).
   */
  private approvalTokens(p: Pinned, full: string): number | null {
    if (p.kind !== 'approval') return null;
    const by = this.nameOf(p.by);
    const head = `- ${by}`;
    const tail = ` approved ${p.of ? `${this.nameOf(p.of)}'s work` : 'the brief'}`;
    if (by === '' || /\s$/u.test(by) || head + tail !== full) return null;
    return this.pieces.of(head) + this.pieces.of(tail);
  }
}

function omittedLine(n: number): string {
  return `(${n} earlier pinned item${n === 1 ? '' : 's'} left out here for the prompt budget; !memory lists every one)`;
}

const EARLIER = 'Earlier items, condensed to their gist:';
const LATEST = 'Latest items, verbatim:';
// Counts of the fixed lines followed by a newline (they never end the block), dropped whole past this many.
const FIXED_COUNTS_MAX = 1024;
const fixedCounts = new Map<string, number>();
function fixed(line: string): number {
  const known = fixedCounts.get(line);
  if (known !== undefined) return known;
  const n = countTokens(`${line}\n`);
  // The moved-out note and the omitted line change with their counts: a long session would keep every one.
  if (fixedCounts.size >= FIXED_COUNTS_MAX) fixedCounts.clear();
  fixedCounts.set(line, n);
  return n;
}

/**
 * Fits the pinned block into `maxTokens`: every item verbatim up to PINNED_ITEM_MAX_CHARS; when that
 * is still too long, the oldest items become their gist (first sentence), as few as needed; only
 * when all gists together are too long are the oldest left out, with a line saying how many.
 * Counts are exact and come from per-item caches: a block is cut into lines after each newline.
 */
export function fitPinned(pinned: readonly Pinned[], lines: PinnedLines, maxTokens: number, previous?: PinnedFit, moved?: MovedPins): PinnedFit {
  const movedCount = moved?.count ?? 0;
  if (pinned.length === 0) return { text: '', bytes: 0, tokens: 0, fullTokens: 0, clipped: 0, condensed: 0, omitted: 0, count: 0, sumNl: 0, moved: movedCount };
  // The moved-out pins' line follows the heading (never the block's last line: some pins always stay).
  const note = moved && moved.count > 0 ? movedLine(moved) : null;
  const withNote = (header: string, rest: string[]) => [header, ...(note ? [note] : []), ...rest].join('\n');
  // Pins are appended, and the oldest moved out from the front: a verbatim block keeps its lines in between.
  const grown = previous ? extendVerbatim(previous, pinned, lines, maxTokens, movedCount, note) : null;
  if (grown) return grown;
  const all = pinned.map((p) => lines.of(p));
  const clipped = all.filter((l) => l.clipped).length;
  const last = all.length - 1;
  const noteTokens = () => (note ? fixed(note) : 0);
  const verbatim = (from: number) => all.slice(from).reduce((n, l, i) => n + (from + i === last ? l.fullEnd : l.fullNl), 0);
  const bodyBytes = all.reduce((n, l) => n + l.fullBytes + 1, -1);
  const bytes = headBytes(PINNED_HEADER, note) + bodyBytes;
  // Within the share by its bytes (the usual case), the block is verbatim without counting a line.
  const sumNl = bytes <= maxTokens ? null : all.reduce((n, l) => n + l.fullNl, 0);
  const fullTokens = sumNl === null ? null : verbatimTokens(note, sumNl, all[last]!);
  if (fullTokens === null || fullTokens <= maxTokens) {
    const body = all.map((l) => l.full).join('\n');
    return verbatimFit(withNote(PINNED_HEADER, [body]), bytes, note, all, body, bodyBytes, clipped, movedCount, sumNl);
  }
  // Condensed: heading, "earlier" gists, "latest" verbatim (the last line ends the block either way).
  let total = fixed(CONDENSED_HEADER) + noteTokens() + fixed(EARLIER) + fixed(LATEST) + verbatim(0);
  let condensed = 0;
  while (condensed < all.length && total > maxTokens) {
    const l = all[condensed]!;
    total += condensed === last ? l.gistEnd - l.fullEnd - fixed(LATEST) : l.gistNl - l.fullNl;
    condensed += 1;
  }
  let omitted = 0;
  while (omitted < last && total > maxTokens) total -= all[omitted++]!.gistNl;
  const gists = all.slice(omitted, condensed).map((l) => l.gist);
  const rest = all.slice(condensed).map((l) => l.full);
  const out = [CONDENSED_HEADER, ...(note ? [note] : []), ...(omitted > 0 ? [omittedLine(omitted)] : []), ...(gists.length ? [EARLIER, ...gists] : []), ...(rest.length ? [LATEST, ...rest] : [])];
  const tokens =
    fixed(CONDENSED_HEADER) +
    noteTokens() +
    (omitted > 0 ? fixed(omittedLine(omitted)) : 0) +
    (gists.length ? fixed(EARLIER) : 0) +
    (rest.length ? fixed(LATEST) + verbatim(condensed) : 0) +
    all.slice(omitted, condensed).reduce((n, l, i) => n + (omitted + i === last ? l.gistEnd : l.gistNl), 0);
  const text = out.join('\n');
  return { text, bytes: tokenBound(text), tokens, fullTokens, clipped, condensed: condensed - omitted, omitted, count: all.length, sumNl: all.reduce((n, l) => n + l.fullNl, 0), moved: movedCount };
}

/** UTF-8 bytes of a block's heading and moved-out note, each with the newline after it. */
function headBytes(header: string, note: string | null): number {
  return header.length + 1 + (note ? tokenBound(note) + 1 : 0);
}

/** Tokens of a verbatim block: heading, note, every line with its newline (`sumNl`) but the last without. */
function verbatimTokens(note: string | null, sumNl: number, last: PinnedLine): number {
  return fixed(PINNED_HEADER) + (note ? fixed(note) : 0) + sumNl - last.fullNl + last.fullEnd;
}

/** A verbatim block whose counts (`tokens`, `fullTokens`, `sumNl`: null when not made yet) are made when first read. */
function verbatimFit(
  text: string,
  bytes: number,
  note: string | null,
  items: readonly PinnedLine[],
  body: string,
  bodyBytes: number,
  clipped: number,
  moved: number,
  counted: number | null,
): PinnedFit {
  let sumNl = counted ?? undefined;
  let tokens: number | undefined;
  return {
    text,
    bytes,
    get tokens() {
      tokens ??= verbatimTokens(note, this.sumNl, items[items.length - 1]!);
      return tokens;
    },
    get fullTokens() {
      return this.tokens;
    },
    get sumNl() {
      sumNl ??= items.reduce((n, l) => n + l.fullNl, 0);
      return sumNl;
    },
    clipped,
    condensed: 0,
    omitted: 0,
    count: items.length,
    moved,
    items,
    body,
    bodyBytes,
  };
}

/**
 * The verbatim block `previous` after pins were appended and the oldest moved out (null when that is not what
 * happened, or the block no longer fits verbatim): the lines that stay are neither rendered nor counted again,
 * their text is cut from the front of the block's body, and only the new lines are added.
 */
function extendVerbatim(previous: PinnedFit, pinned: readonly Pinned[], lines: PinnedLines, maxTokens: number, movedCount: number, note: string | null): PinnedFit | null {
  const items = previous.items;
  if (!items || previous.body === undefined || previous.bodyBytes === undefined || previous.condensed !== 0 || previous.omitted !== 0 || items.length !== previous.count) return null;
  const out = movedCount - previous.moved;
  const stay = items.length - out;
  // The pins that stay must be the same ones, now at the front (a pin's lines are cached by the pin itself).
  if (out < 0 || stay <= 0 || stay > pinned.length || lines.of(pinned[0]!) !== items[out] || lines.of(pinned[stay - 1]!) !== items[items.length - 1]) return null;
  let cut = 0;
  let bodyBytes = previous.bodyBytes;
  let clipped = previous.clipped;
  for (let i = 0; i < out; i++) {
    const l = items[i]!;
    cut += l.full.length + 1;
    bodyBytes -= l.fullBytes + 1;
    if (l.clipped) clipped -= 1;
  }
  const added: PinnedLine[] = [];
  for (let i = stay; i < pinned.length; i++) added.push(lines.of(pinned[i]!));
  let body = cut > 0 ? previous.body.slice(cut) : previous.body;
  for (const l of added) {
    body += `\n${l.full}`;
    bodyBytes += l.fullBytes + 1;
    if (l.clipped) clipped += 1;
  }
  const kept = out === 0 && added.length === 0 ? items : [...items.slice(out), ...added];
  const bytes = headBytes(PINNED_HEADER, note) + bodyBytes;
  // Over the share by its bytes: counted (from the block before's count, by the lines that left and came), and given up when its tokens are over it too.
  let sumNl: number | null = null;
  if (bytes > maxTokens) {
    sumNl = previous.sumNl;
    for (let i = 0; i < out; i++) sumNl -= items[i]!.fullNl;
    for (const l of added) sumNl += l.fullNl;
    if (verbatimTokens(note, sumNl, kept[kept.length - 1]!) > maxTokens) return null;
  }
  // Concatenated, not joined: the block links the body it extends instead of copying it at every refit.
  const text = note ? `${PINNED_HEADER}\n${note}\n${body}` : `${PINNED_HEADER}\n${body}`;
  return verbatimFit(text, bytes, note, kept, body, bodyBytes, clipped, movedCount, sumNl);
}

/** The memory_trimmed labels for what the pinned block gave up ([] when nothing). */
export function pinnedTrimLabels(fit: Pick<PinnedFit, 'omitted' | 'condensed' | 'clipped'>): string[] {
  const out: string[] = [];
  if (fit.omitted) out.push(`pinned: ${fit.omitted} oldest item(s) left out (their gist did not fit either)`);
  if (fit.condensed) out.push(`pinned: ${fit.condensed} oldest item(s) condensed to their gist`);
  if (fit.clipped) out.push(`pinned: ${fit.clipped} item(s) cut to ${PINNED_ITEM_MAX_CHARS} characters`);
  return out;
}

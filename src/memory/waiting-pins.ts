import type { ChatMessage } from '../llm/chat-model.js';
import type { Memory } from './memory.js';
import type { PinnedLine, PinnedLines } from './pinned-fit.js';
import { PieceTokens } from './piece-tokens.js';
import { MESSAGE_OVERHEAD } from './tokens.js';

/** Heading of the message that lists pins made since the last summary. */
export const WAITING_PINS_HEADER = '## Pinned since the last summary (verbatim, binding for everyone)';

/** The waiting message: null when no pin waits; a bound on its tokens (its bytes), its exact tokens when read, and how many of its pins are cut. */
export interface WaitingMessage {
  message: ChatMessage | null;
  /** MESSAGE_OVERHEAD and the content's UTF-8 bytes (0 when no pin waits): at least `tokens`, known without counting. */
  bound: number;
  /** Exact tokens as a chat message, counted when first read. */
  readonly tokens: number;
  clipped: number;
}

/** The waiting message as last built, with what it covers: pins `from`..`to` of the pinned list (a class: its lazy count is a prototype getter, not an accessor made per build). */
class Waiting implements WaitingMessage {
  private counted: number | undefined;

  constructor(
    readonly pins: number,
    readonly settled: number,
    readonly lines: PinnedLines,
    readonly from: number,
    readonly to: number,
    /** The lines of pins `from`..`to`, in order (shared with the message before, which is never read again once replaced). */
    readonly items: PinnedLine[],
    /** UTF-8 bytes of the content. */
    readonly bytes: number,
    readonly message: ChatMessage | null,
    readonly clipped: number,
    private readonly owner: WaitingPins,
  ) {}

  get bound(): number {
    return this.message ? MESSAGE_OVERHEAD + this.bytes : 0;
  }

  get tokens(): number {
    // The first `count` items are this message's (a later message may have appended to the shared list).
    const count = this.to - this.from;
    this.counted ??= count === 0 ? 0 : this.owner.count(this.items, count);
    return this.counted;
  }
}

/**
 * The pins made since the pinned block of the prefix last changed, as one message after the recent turns
 * (so a new pin does not change the prefix, and a provider's prompt cache keeps serving it); they join the
 * pinned block at the next summary. Built by appending the new pins' lines (each rendered once, and counted
 * only when a prompt's bound is over its budget).
 */
export class WaitingPins {
  private cached: Waiting | null = null;
  private header = -1;

  private readonly pieces = new PieceTokens();

  constructor(private readonly memory: Memory) {}

  /** The waiting message for the pins now. */
  of(lines: PinnedLines): WaitingMessage {
    const pins = this.memory.pinnedVersion;
    const settled = this.memory.settledVersion;
    const was = this.cached;
    if (was && was.pins === pins && was.settled === settled && was.lines === lines) return was;
    const pinned = this.memory.pinned;
    const from = this.memory.settledPins;
    // Pins are only appended while the block stays as it is: the message grows by the new lines.
    const grows = was !== null && was.settled === settled && was.lines === lines && was.from === from && was.to <= pinned.length && was.to > from;
    const start = grows ? was.to : from;
    let content = grows ? was.message!.content : WAITING_PINS_HEADER;
    let bytes = grows ? was.bytes : WAITING_PINS_HEADER.length;
    let clipped = grows ? was.clipped : 0;
    // The lines are shared with the message before (which is never read again once replaced).
    const items = grows ? was.items : [];
    for (let i = start; i < pinned.length; i++) {
      const l = lines.of(pinned[i]!);
      content += `\n${l.full}`;
      bytes += 1 + l.fullBytes;
      if (l.clipped) clipped += 1;
      items.push(l);
    }
    const message: ChatMessage | null = items.length > 0 ? { role: 'user', content } : null;
    this.cached = new Waiting(pins, settled, lines, from, pinned.length, items, bytes, message, clipped, this);
    return this.cached;
  }

  /** Exact tokens of the message made of the first `count` lines (each but the last with its newline). */
  count(items: readonly PinnedLine[], count: number): number {
    if (this.header < 0) this.header = this.pieces.of(`${WAITING_PINS_HEADER}\n`);
    let n = MESSAGE_OVERHEAD + this.header;
    for (let i = 0; i < count - 1; i++) n += items[i]!.fullNl;
    return n + items[count - 1]!.fullEnd;
  }
}

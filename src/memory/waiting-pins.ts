import type { ChatMessage } from '../llm/chat-model.js';
import type { Memory } from './memory.js';
import type { PinnedLine, PinnedLines } from './pinned-fit.js';
import { PieceTokens } from './piece-tokens.js';
import { MESSAGE_OVERHEAD } from './tokens.js';

/** Heading of the message that lists pins made since the last summary. */
export const WAITING_PINS_HEADER = '## Pinned since the last summary (verbatim, binding for everyone)';

/** The waiting message as last built, with what it covers: pins `from`..`to` of the pinned list. */
interface Waiting {
  pins: number;
  settled: number;
  lines: PinnedLines;
  from: number;
  to: number;
  message: ChatMessage | null;
  tokens: number;
  clipped: number;
  /** Tokens of every line but the last with its newline, and the last line. */
  nl: number;
  last: PinnedLine | null;
}

/**
 * The pins made since the pinned block of the prefix last changed, as one message after the recent turns
 * (so a new pin does not change the prefix, and a provider's prompt cache keeps serving it); they join the
 * pinned block at the next summary. Built by appending the new pins' lines (each rendered and counted once).
 */
export class WaitingPins {
  private cached: Waiting | null = null;
  private header = -1;

  private readonly pieces = new PieceTokens();

  constructor(private readonly memory: Memory) {}

  /** The message (null when no pin waits), its tokens, and how many of its pins are cut to PINNED_ITEM_MAX_CHARS. */
  of(lines: PinnedLines): { message: ChatMessage | null; tokens: number; clipped: number } {
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
    let nl = grows ? was.nl : 0;
    let clipped = grows ? was.clipped : 0;
    let last = grows ? was.last : null;
    for (let i = start; i < pinned.length; i++) {
      const l = lines.of(pinned[i]!);
      if (last) nl += last.fullNl;
      content += `\n${l.full}`;
      if (l.clipped) clipped += 1;
      last = l;
    }
    if (this.header < 0) this.header = this.pieces.of(`${WAITING_PINS_HEADER}\n`);
    const message: ChatMessage | null = last ? { role: 'user', content } : null;
    const tokens = last ? MESSAGE_OVERHEAD + this.header + nl + last.fullEnd : 0;
    this.cached = { pins, settled, lines, from, to: pinned.length, message, tokens, clipped, nl, last };
    return this.cached;
  }
}

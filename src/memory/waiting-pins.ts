import type { ChatMessage } from '../llm/chat-model.js';
import type { Memory } from './memory.js';
import type { PinnedLines } from './pinned-fit.js';
import { PieceTokens } from './piece-tokens.js';
import { MESSAGE_OVERHEAD } from './tokens.js';

/** Heading of the message that lists pins made since the last summary. */
export const WAITING_PINS_HEADER = '## Pinned since the last summary (verbatim, binding for everyone)';

/**
 * The pins made since the pinned block of the prefix last changed, as one message after the recent turns
 * (so a new pin does not change the prefix, and a provider's prompt cache keeps serving it); they join the
 * pinned block at the next summary. Built and counted once per pinned version.
 */
export class WaitingPins {
  private cached: { pins: number; settled: number; message: ChatMessage | null; tokens: number; clipped: number } | null = null;

  private readonly pieces = new PieceTokens();

  constructor(private readonly memory: Memory) {}

  /** The message (null when no pin waits), its tokens, and how many of its pins are cut to PINNED_ITEM_MAX_CHARS. */
  of(lines: PinnedLines): { message: ChatMessage | null; tokens: number; clipped: number } {
    const pins = this.memory.pinnedVersion;
    const settled = this.memory.settledVersion;
    if (this.cached && this.cached.pins === pins && this.cached.settled === settled) return this.cached;
    const waiting = this.memory.pinned.slice(this.memory.settledPins).map((p) => lines.of(p));
    const message: ChatMessage | null = waiting.length ? { role: 'user', content: [WAITING_PINS_HEADER, ...waiting.map((l) => l.full)].join('\n') } : null;
    let tokens = 0;
    if (message) {
      tokens = MESSAGE_OVERHEAD + this.pieces.of(`${WAITING_PINS_HEADER}\n`) + waiting[waiting.length - 1]!.fullEnd;
      for (let i = 0; i < waiting.length - 1; i++) tokens += waiting[i]!.fullNl;
    }
    this.cached = { pins, settled, message, tokens, clipped: waiting.filter((l) => l.clipped).length };
    return this.cached;
  }
}

import type { Summary } from './memory-state.js';
import { summaryText, SUMMARIES_HEADER } from './render.js';
import { countTokens } from './tokens.js';

type Block = { text: string; nl: number; end: number };

const NONE = Object.freeze({ text: '', tokens: 0 });

const ENDS_IN_WORD = /[\p{L}\p{N}]$/u;

/**
 * The summaries message of a prompt for a run of summaries, with its exact token count: each
 * summary's block is counted once (it starts with "###" after a newline, so blocks add up exactly).
 */
export class SummariesMessage {
  private readonly messages = new Map<string, { text: string; tokens: number }>();
  private readonly blocks = new WeakMap<Summary, Block>();
  private header = -1;
  // The run asked for last, by its ends and length: every persona's head asks for the same run until a summary lands.
  private latest: { first: number; last: number; count: number; message: { text: string; tokens: number } } | null = null;

  /** The message text and its tokens as a chat message (nothing for no summaries). */
  of(summaries: readonly Summary[]): { text: string; tokens: number } {
    if (summaries.length === 0) return NONE;
    const first = summaries[0]!.id;
    const last = summaries[summaries.length - 1]!.id;
    const latest = this.latest;
    if (latest && latest.first === first && latest.last === last && latest.count === summaries.length) return latest.message;
    // Summary ids are never reused, so a run of them is named by its ends and length.
    const key = `${first}:${last}:${summaries.length}`;
    let message = this.messages.get(key);
    if (!message) {
      if (this.messages.size > 256) this.messages.clear();
      const blocks = summaries.map((s) => this.block(s));
      if (this.header < 0) this.header = countTokens(`${SUMMARIES_HEADER}\n`);
      const tokens = 4 + this.header + blocks.reduce((n, b, i) => n + (i === blocks.length - 1 ? b.end : b.nl), 0);
      message = { text: `${SUMMARIES_HEADER}\n${blocks.map((b) => b.text).join('\n')}`, tokens };
      this.messages.set(key, message);
    }
    this.latest = { first, last, count: summaries.length, message };
    return message;
  }

  private block(summary: Summary): Block {
    let block = this.blocks.get(summary);
    if (!block) {
      const text = summaryText(summary);
      // The summary's own count is of this same text (made when it was written); after a letter or digit
      // o200k makes the newline a token of its own, so the text is not tokenized again.
      block = { text, nl: ENDS_IN_WORD.test(text) ? summary.tokens + 1 : countTokens(`${text}\n`), end: summary.tokens };
      this.blocks.set(summary, block);
    }
    return block;
  }
}

import { countTokens } from './tokens.js';

/**
 * Token counts of prompt pieces, each counted once. Prompts are cut into pieces right after a
 * newline that is followed by "#", "-" or a letter, where o200k's pre-tokenizer always splits:
 * the counts of the pieces add up to the count of the whole, and a piece shared by many prompts
 * (a roster line, a pinned item, the protocol) is tokenized only the first time.
 */
export class PieceTokens {
  private readonly counts = new Map<string, number>();

  /** Tokens of one piece. */
  of(piece: string): number {
    let n = this.counts.get(piece);
    if (n === undefined) {
      n = countTokens(piece);
      this.counts.set(piece, n);
    }
    return n;
  }

  /** Tokens of pieces that follow each other. */
  sum(pieces: readonly string[]): number {
    let n = 0;
    for (const p of pieces) n += this.of(p);
    return n;
  }
}

/** Lines as pieces: each but the last keeps the newline that joins it to the next. */
export function linePieces(lines: readonly string[], trailing = ''): string[] {
  return lines.map((l, i) => (i < lines.length - 1 ? `${l}\n` : `${l}${trailing}`));
}

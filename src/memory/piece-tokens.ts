import { countTokens } from './tokens.js';

// Shared by every session of the process, so a new session of the same team (the same roster lines, protocol
// and persona prompts) counts nothing again; dropped whole when it holds more than this many characters.
const SHARED_MAX_CHARS = 4_000_000;
const shared = new Map<string, number>();
let sharedChars = 0;

/**
 * Token counts of prompt pieces, each counted once per process. Prompts are cut into pieces right
 * after a newline that is followed by "#", "-" or a letter, where o200k's pre-tokenizer always splits:
 * the counts of the pieces add up to the count of the whole, and a piece shared by many prompts
 * (a roster line, a pinned item, the protocol) is tokenized only the first time.
 */
export class PieceTokens {
  /** Tokens of one piece. */
  of(piece: string): number {
    let n = shared.get(piece);
    if (n === undefined) {
      n = countTokens(piece);
      if (sharedChars + piece.length > SHARED_MAX_CHARS) {
        shared.clear();
        sharedChars = 0;
      }
      shared.set(piece, n);
      sharedChars += piece.length;
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

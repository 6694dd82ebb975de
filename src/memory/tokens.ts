import { countTokens as countO200k } from 'gpt-tokenizer';
import type { ChatMessage } from '../llm/chat-model.js';

// Chat formats wrap each message in a few control tokens (role, separators); 4 matches OpenAI's accounting.
const PER_MESSAGE = 4;
const PER_REPLY = 3;

// gpt-tokenizer's BPE is quadratic in the length of one pre-token, and a run without spaces (CJK,
// base64, one letter repeated) is a single pre-token: such runs are cut into pieces of RUN characters.
const RUN = 256;
// Pieces are grouped into chunks of about this size, cut before whitespace so words stay whole.
const CHUNK = 4096;
/** Characters counted exactly; beyond, the count is extrapolated from the counted part. */
export const MAX_COUNTED_CHARS = 64_000;

/** Splits text into tokenizer-safe chunks: ≤ CHUNK characters, no run of non-whitespace longer than RUN. */
export function tokenChunks(text: string): string[] {
  const chunks: string[] = [];
  let chunk = '';
  let glued = false;
  // Whitespace runs, or at most RUN code points of anything else (never splits a surrogate pair).
  for (const [piece] of text.matchAll(/\s+|\S{1,256}/gu)) {
    const word = !/^\s/u.test(piece);
    // Two pieces of one long run would join into one pre-token again: they go to separate chunks.
    if (chunk !== '' && (chunk.length + piece.length > CHUNK || (word && glued))) {
      chunks.push(chunk);
      chunk = '';
    }
    chunk += piece;
    glued = word;
  }
  if (chunk !== '') chunks.push(chunk);
  return chunks;
}

/** Counts with a tokenizer in bounded chunks, exactly up to MAX_COUNTED_CHARS and extrapolated beyond. */
export function countTokensWith(count: (piece: string) => number, text: string): number {
  if (text === '') return 0;
  const head = text.length > MAX_COUNTED_CHARS ? text.slice(0, MAX_COUNTED_CHARS) : text;
  // Plain prose of moderate size is one pre-token per word already: count it in one go.
  const counted = head.length <= CHUNK && !/\S{257}/u.test(head) ? count(head) : tokenChunks(head).reduce((n, c) => n + count(c), 0);
  if (head.length === text.length) return counted;
  return counted + Math.ceil(((text.length - head.length) * counted) / head.length);
}

/** Tokens in a text, counted with the o200k_base tokenizer (gpt-4o family), in bounded time for any input. */
export function countTokens(text: string): number {
  return countTokensWith(countO200k, text);
}

/** Tokens of a chat message including its framing. */
export function messageTokens(message: ChatMessage): number {
  return PER_MESSAGE + countTokens(message.content);
}

/** Tokens of a whole prompt as a chat model counts it. */
export function promptTokens(messages: ChatMessage[]): number {
  return messages.reduce((n, m) => n + messageTokens(m), PER_REPLY);
}

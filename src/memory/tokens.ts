import { createRequire } from 'node:module';
import type { ChatMessage } from '../llm/chat-model.js';

type Count = (text: string) => number;

// gpt-tokenizer takes 0.1-0.2 s to load (its BPE ranks): it is loaded when first needed, not at start-up.
let loaded: Count | null = null;
let loading: Promise<void> | null = null;

/** True once the tokenizer is loaded (until then a count loads it at once, synchronously). */
export function tokenizerReady(): boolean {
  return loaded !== null;
}

/** The background load under way (null when none was started, or it was loaded at once by a count). */
export function tokenizerLoading(): Promise<void> | null {
  return loaded ? null : loading;
}

/**
 * Loads the tokenizer in the background, starting after the current task (the UI asks once its first
 * frame is drawn; a session once its first answer is in, after that answer is shown); idempotent.
 */
export function loadTokenizer(): Promise<void> {
  if (loaded) return Promise.resolve();
  // The same (CommonJS) build a count loads at once: with the ES build here, a count before this ran loaded
  // both, each with its own 2 MiB of ranks. Either way the module is built on the calling thread.
  loading ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => void o200k());
  return loading;
}

/** The o200k counter; a count before the background load finished loads it at once (synchronously). */
function o200k(): Count {
  loaded ??= (createRequire(import.meta.url)('gpt-tokenizer') as typeof import('gpt-tokenizer')).countTokens;
  return loaded;
}

// Chat formats wrap each message in a few control tokens (role, separators); 4 matches OpenAI's accounting.
const PER_MESSAGE = 4;
/** Tokens a message costs beyond its content (role and separators). */
export const MESSAGE_OVERHEAD = PER_MESSAGE;
const PER_REPLY = 3;
/** Tokens a prompt costs beyond its messages (the reply's priming). */
export const PROMPT_OVERHEAD = PER_REPLY;

// gpt-tokenizer's BPE is quadratic in the length of one pre-token, and a run without spaces (CJK,
// base64, one letter repeated) is a single pre-token: such runs are cut into pieces of RUN characters.
const RUN = 256;
// Pieces are grouped into chunks of about this size, cut before whitespace so words stay whole.
const CHUNK = 4096;
/** Characters counted exactly; beyond, the count is extrapolated from the counted part. */
export const MAX_COUNTED_CHARS = 64_000;

const LETTER = /^\p{L}/u;

/**
 * True where o200k's pre-tokenizer always splits, so counting both sides apart gives the same total:
 * after a newline run that a non-space (other than "/") follows, or before a single space between a
 * word and a letter. (Cutting before a newline is not safe: "." + "\n" is one pre-token.)
 */
function safeCut(prev: string, piece: string, next: string | undefined): boolean {
  const word = !/^\s/u.test(piece);
  if (word) return prev.endsWith('\n') && !piece.startsWith('/');
  return piece === ' ' && !/\s$/u.test(prev) && next !== undefined && LETTER.test(next);
}

/**
 * Splits text into tokenizer-safe chunks of about CHUNK characters, cut where the count stays exact;
 * a run of non-whitespace longer than RUN is cut every RUN characters (its count becomes an estimate).
 */
export function tokenChunks(text: string): string[] {
  // Whitespace runs, or at most RUN code points of anything else (never splits a surrogate pair).
  const pieces = text.match(/\s+|\S{1,256}/gu) ?? [];
  const chunks: string[] = [];
  let chunk = '';
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const prev = pieces[i - 1] ?? '';
    // Two pieces of one long run would join into one pre-token again: they go to separate chunks.
    const forced = prev !== '' && !/^\s/u.test(prev) && !/^\s/u.test(piece);
    const full = chunk.length + piece.length > CHUNK;
    if (chunk !== '' && (forced || (full && (safeCut(prev, piece, pieces[i + 1]) || chunk.length > 2 * CHUNK)))) {
      chunks.push(chunk);
      chunk = '';
    }
    chunk += piece;
  }
  if (chunk !== '') chunks.push(chunk);
  return chunks;
}

/** True when the text holds more than RUN characters in a row without whitespace (a plain loop: this runs on every count). */
function hasLongRun(text: string): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Space, tab, newline, carriage return and the other ASCII/Unicode spaces a message may hold.
    if (c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029) run = 0;
    else if (++run > RUN) return true;
  }
  return false;
}

/** Counts with a tokenizer in bounded chunks, exactly up to MAX_COUNTED_CHARS and extrapolated beyond. */
export function countTokensWith(count: (piece: string) => number, text: string): number {
  if (text === '') return 0;
  const head = text.length > MAX_COUNTED_CHARS ? text.slice(0, MAX_COUNTED_CHARS) : text;
  // Plain prose of moderate size is one pre-token per word already: count it in one go.
  const counted = head.length <= CHUNK && !hasLongRun(head) ? count(head) : tokenChunks(head).reduce((n, c) => n + count(c), 0);
  if (head.length === text.length) return counted;
  return counted + Math.ceil(((text.length - head.length) * counted) / head.length);
}

// o200k's pre-tokenizer (gpt-tokenizer's O200K_TOKEN_SPLIT_PATTERN): its BPE merges only inside one pre-token,
// so a text's count is the sum of its pre-tokens' counts.
const CONTRACTION = "(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?";
const PRE_TOKEN = new RegExp(
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+${CONTRACTION}|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*${CONTRACTION}|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  'gu',
);
// The same pattern, matched only where the previous pre-token ended.
const PRE_TOKEN_AT = new RegExp(PRE_TOKEN.source, 'uy');
// Pre-tokens up to this length are cached (longer ones are rare: runs of symbols or of one script).
const CACHED_PRE_TOKEN = 64;
// The cache is dropped whole when it holds this many pre-tokens (a bound on its memory, about 5 MiB).
const PRE_TOKEN_CACHE_MAX = 65_536;
const preTokenCounts = new Map<string, number>();

/**
 * A counter that sums cached per-pre-token counts and tokenizes only the pre-tokens not seen before:
 * exact (the BPE never merges across pre-tokens), and it skips gpt-tokenizer's per-call work (its
 * special-token scan, its 200k-entry rank map and merge cache) for the words a session repeats. A
 * special token's text ("<|endoftext|>") is counted as the plain text it is in a message.
 */
export function cachingCounter(count: Count, cache: Map<string, number> = preTokenCounts): Count {
  return (text) => {
    let n = 0;
    let at = 0;
    while (at < text.length) {
      // The pre-token starting here, found by a sticky test (its end is lastIndex): no match array per pre-token,
      // which was the largest allocation of a count. Where none starts here the search finds the next, as exec did.
      PRE_TOKEN_AT.lastIndex = at;
      let end: number;
      if (PRE_TOKEN_AT.test(text)) end = PRE_TOKEN_AT.lastIndex;
      else {
        PRE_TOKEN.lastIndex = at;
        const m = PRE_TOKEN.exec(text);
        if (m === null) break;
        at = m.index;
        end = at + m[0].length;
      }
      const piece = text.slice(at, end);
      at = end;
      let k = cache.get(piece);
      if (k === undefined) {
        k = count(piece);
        if (piece.length <= CACHED_PRE_TOKEN) {
          if (cache.size >= PRE_TOKEN_CACHE_MAX) cache.clear();
          cache.set(piece, k);
        }
      }
      n += k;
    }
    return n;
  };
}

let cachedO200k: Count | null = null;

/** Tokens in a text, counted with the o200k_base tokenizer (gpt-4o family), in bounded time for any input. */
export function countTokens(text: string): number {
  cachedO200k ??= cachingCounter(o200k());
  return countTokensWith(cachedO200k, text);
}

/**
 * An upper bound on `countTokens(text)` without tokenizing: every o200k token encodes at least one byte (a
 * special token's text is counted as the plain text it is, by pieces), so up to MAX_COUNTED_CHARS the UTF-8
 * byte length bounds the count; beyond, the counted part has at most three tokens per UTF-16 unit (a unit is
 * at most three bytes) and the rest is extrapolated at its rate, rounded up to at most that integer: three
 * per unit bounds it. (A sum of such bounds of pieces bounds the pieces' counts too.)
 */
export function tokenBound(text: string): number {
  return text.length <= MAX_COUNTED_CHARS ? Buffer.byteLength(text, 'utf8') : 3 * text.length;
}

/** An upper bound on `messageTokens(message)` without tokenizing (see tokenBound). */
export function messageBound(message: ChatMessage): number {
  const calls = message.role === 'assistant' && message.toolCalls ? message.toolCalls.reduce((n, c) => n + PER_MESSAGE + tokenBound(c.name) + tokenBound(c.arguments), 0) : 0;
  return PER_MESSAGE + tokenBound(message.content) + calls;
}

/** Tokens of a chat message including its framing. */
export function messageTokens(message: ChatMessage): number {
  const calls = message.role === 'assistant' && message.toolCalls ? message.toolCalls.reduce((n, c) => n + PER_MESSAGE + countTokens(c.name) + countTokens(c.arguments), 0) : 0;
  return PER_MESSAGE + countTokens(message.content) + calls;
}

/** Tokens of a whole prompt as a chat model counts it. */
export function promptTokens(messages: ChatMessage[]): number {
  return messages.reduce((n, m) => n + messageTokens(m), PER_REPLY);
}

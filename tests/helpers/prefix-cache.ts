import { createHash } from 'node:crypto';

/** How a prefix cache behaves: block size and minimum in tokens, and how long an unused entry lives. */
export interface PrefixCacheOptions {
  /** Tokens per cached block: a prefix is reused in whole blocks only (OpenAI: 128, vLLM: 16). */
  blockTokens: number;
  /** Shortest prompt that is cached or served from the cache (OpenAI: 1,024 tokens; vLLM: one block). */
  minTokens: number;
  /** An entry not used for this long is gone (OpenAI: 5 to 10 minutes of inactivity). */
  ttlMs: number;
}

/** OpenAI's documented behaviour: prefixes of 1,024+ tokens, in 128-token steps, kept for minutes of inactivity. */
export const OPENAI_LIKE: PrefixCacheOptions = { blockTokens: 128, minTokens: 1024, ttlMs: 5 * 60_000 };

/** Bytes this model counts as one token (English prose runs about 4 bytes a token in o200k). */
export const BYTES_PER_TOKEN = 4;

type WireMessage = { role?: unknown; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown; name?: unknown };

/**
 * The bytes a server would feed its model for a chat request, in order: each message with its role and
 * content, the tool definitions right after the system message (where chat templates such as Llama's and
 * Qwen's put them: one persona's tools never make another persona's prompt share its head). Everything in
 * the request that reaches the model is in it, so two requests share a prefix only where they really do.
 */
export function renderPrompt(body: { messages?: WireMessage[]; tools?: unknown }): string {
  const tools = body.tools ? `<|tools|>${JSON.stringify(body.tools)}<|end|>\n` : '';
  const messages = (body.messages ?? []).map((m) => {
    const extra = m.tool_calls ? JSON.stringify(m.tool_calls) : m.tool_call_id ? `[${String(m.tool_call_id)}]` : '';
    return `<|${String(m.role)}|>${typeof m.content === 'string' ? m.content : ''}${extra}<|end|>\n`;
  });
  const head = messages.length > 0 && body.messages![0]!.role === 'system' ? 1 : 0;
  return [...messages.slice(0, head), tools, ...messages.slice(head)].join('');
}

/** Tokens of a rendered prompt as this model counts them. */
export function promptTokensOf(rendered: string): number {
  return Math.ceil(Buffer.byteLength(rendered, 'utf8') / BYTES_PER_TOKEN);
}

/** What a lookup found: the prompt's tokens and how many of them (whole blocks from the start) were cached. */
export interface CacheLookup {
  promptTokens: number;
  cachedTokens: number;
  /** Keys of the prompt's whole blocks, in order (to insert after the prefill). */
  blocks: string[];
}

/**
 * A prompt-prefix cache as OpenAI, vLLM and llama.cpp keep one: the prompt is cut into blocks of
 * `blockTokens`; each block is keyed by a hash of its bytes chained to the previous block's key, so a
 * block is only found after exactly the same bytes; a hit is the run of found blocks from the start.
 * Entries live `ttlMs` after their last use. The clock is injected (tests, a scaled bench).
 */
export class PrefixCache {
  private readonly expiry = new Map<string, number>();

  constructor(
    readonly options: PrefixCacheOptions,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Looks a rendered prompt up; a hit refreshes the blocks it used. */
  lookup(rendered: string): CacheLookup {
    const bytes = Buffer.from(rendered, 'utf8');
    const promptTokens = Math.ceil(bytes.length / BYTES_PER_TOKEN);
    const blockBytes = this.options.blockTokens * BYTES_PER_TOKEN;
    const blocks: string[] = [];
    let key = '';
    for (let at = 0; at + blockBytes <= bytes.length; at += blockBytes) {
      key = createHash('sha1')
        .update(key)
        .update(bytes.subarray(at, at + blockBytes))
        .digest('hex');
      blocks.push(key);
    }
    if (promptTokens < this.options.minTokens) return { promptTokens, cachedTokens: 0, blocks };
    const t = this.now();
    let hit = 0;
    while (hit < blocks.length && (this.expiry.get(blocks[hit]!) ?? -Infinity) > t) hit += 1;
    const cachedTokens = hit * this.options.blockTokens;
    if (cachedTokens < this.options.minTokens) return { promptTokens, cachedTokens: 0, blocks };
    for (let i = 0; i < hit; i++) this.expiry.set(blocks[i]!, t + this.options.ttlMs);
    return { promptTokens, cachedTokens, blocks };
  }

  /** Keeps a prompt's blocks (once its prefill is done), for `ttlMs` from now. */
  insert(lookup: CacheLookup): void {
    if (lookup.promptTokens < this.options.minTokens) return;
    const until = this.now() + this.options.ttlMs;
    for (const key of lookup.blocks) this.expiry.set(key, until);
    // Expired entries are dropped now and then, so a long run does not keep every block it ever saw.
    if (this.expiry.size > 200_000) for (const [k, v] of this.expiry) if (v <= this.now()) this.expiry.delete(k);
  }

  /** Blocks held (expired ones included until swept). */
  get size(): number {
    return this.expiry.size;
  }
}

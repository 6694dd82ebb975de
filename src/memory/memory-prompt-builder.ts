import type { ChatMessage } from '../llm/chat-model.js';
import { event, type EngineEvent } from '../engine/event-map.js';
import type { Inbox } from '../engine/inbox.js';
import type { Memory } from './memory.js';
import type { RawTurn, Summary } from './memory-state.js';
import { namesFor } from './names.js';
import { PieceTokens } from './piece-tokens.js';
import { PromptPrefixes } from './prompt-prefix.js';
import { closingMessages, type PrefixInput, type PromptBuilder, type PromptInput } from './prompt-builder.js';
import { trimLabel, type NameOf } from './render.js';
import { SummariesMessage } from './summaries-message.js';
import { WaitingPins } from './waiting-pins.js';
import { MESSAGE_OVERHEAD, messageTokens, PROMPT_OVERHEAD, tokenizerReady } from './tokens.js';

/** Settings of the memory prompt builder. */
export interface MemoryPromptOptions {
  /** Max prompt tokens per call (team.json `memory.prompt_budget`). */
  budget: number;
  /** Where `memory_trimmed` goes. */
  publish?: (e: EngineEvent) => void;
}

type Item = { kind: 'summary'; s: Summary } | { kind: 'turn'; t: RawTurn };

/** The heading of a message that ends by quoting `text` after a newline, where o200k splits (so the counts add up), or null. */
function quoteHeading(content: string, text: string): string | null {
  const at = content.length - text.length;
  if (at <= 0 || content[at - 1] !== '\n' || !content.endsWith(text) || !/^[#\-\p{L}]/u.test(text)) return null;
  return content.slice(0, at);
}

function turnMessage(t: RawTurn, self: string, nameOf: NameOf): ChatMessage {
  if (t.author === self) return { role: 'assistant', content: t.text };
  return { role: 'user', content: `[${nameOf(t.author)}]: ${t.text}` };
}

/**
 * Memory on: system = persona prompt, roster, protocol, brief and the pinned decisions as of the last
 * summary; then the summaries, the recent raw turns, the pins made since the last summary, and the
 * inbox. What changes least comes first, and the prompt up to the newest turn stays byte-identical from
 * one call to the next until a summary is made, so providers can serve it from their prompt cache. Over
 * the budget, the oldest non-pinned material goes first and `memory_trimmed` says what went; pinned
 * items are capped, and condensed to their gist when they alone would take more than their share of
 * the budget.
 *
 * Token counts are cached (PromptPrefixes, SummariesMessage): the prefix once per persona and pinned
 * version, a turn once per view, a summary once; only the inbox is counted on every call.
 */
export class MemoryPromptBuilder implements PromptBuilder {
  private readonly prefixes: PromptPrefixes;
  private readonly summariesMessage = new SummariesMessage();
  private readonly turnTokens = new Map<number, number>();
  private readonly pieces = new PieceTokens();
  private readonly waitingPins: WaitingPins;

  constructor(
    readonly memory: Memory,
    private readonly options: MemoryPromptOptions,
  ) {
    this.prefixes = new PromptPrefixes(memory, options.budget);
    this.waitingPins = new WaitingPins(memory);
  }

  /** The stable prefix for a persona: system prompt, brief, pinned decisions. */
  prefix(input: PrefixInput): string {
    return this.prefixes.of(input).text;
  }

  private turnCost(t: RawTurn, self: string, message: ChatMessage, nameOf: NameOf): number {
    // A persona's own turn is its text as is: the count made when the turn was stored.
    if (t.author === self) return MESSAGE_OVERHEAD + t.tokens;
    let n = this.turnTokens.get(t.id);
    if (n === undefined) {
      const spaced = this.spacedTokens(t);
      n = spaced === null ? messageTokens(message) : MESSAGE_OVERHEAD + this.pieces.of(`[${nameOf(t.author)}]:`) + spaced;
      this.turnTokens.set(t.id, n);
    }
    return n;
  }

  /**
   * Tokens of " " + a turn's text, from the count made when it was stored: only its first word changes
   * (o200k joins the space to it), and after a run of letters o200k always splits unless an apostrophe
   * follows, so the rest counts the same. Null when the text does not start that way.
   */
  private spacedTokens(t: RawTurn): number | null {
    const word = /^[\p{L}\p{M}]{1,64}/u.exec(t.text)?.[0];
    if (!word) return null;
    const next = t.text[word.length];
    if (next !== undefined && (next === "'" || /[\p{L}\p{M}]/u.test(next))) return null;
    return t.tokens - this.pieces.of(word) + this.pieces.of(` ${word}`);
  }

  build(input: PromptInput): ChatMessage[] {
    return this.assemble(input, input.call);
  }

  /**
   * The messages a call of this persona would start with now, without the message that gives it the turn
   * (and that message's quote of the latest turn stays in): what a cache-warming request sends ahead of
   * the call, byte-identical to the head of the call's prompt unless something new is said or pinned.
   */
  prefixMessages(input: PrefixInput): ChatMessage[] {
    return this.assemble(input, null);
  }

  private assemble(input: PrefixInput, call: PromptInput['call'] | null): ChatMessage[] {
    if (!tokenizerReady()) {
      const early = this.beforeTokenizer(input, call);
      if (early) return early;
    }
    const nameOf = namesFor(input.def);
    const self = input.persona.id;
    const prefix = this.prefixes.of(input);
    const system: ChatMessage = { role: 'system', content: prefix.text };
    const closing = call ? closingMessages({ ...input, call }) : [];
    const inbox = call?.inbox;
    let raw = this.memory.recent;
    const last = raw[raw.length - 1];
    // The inbox quotes the latest message; do not send it twice.
    if (inbox && last && 'text' in inbox && last.text === inbox.text) raw = raw.slice(0, -1);
    const summaries = this.memory.summaries;
    const turns = raw.map((t) => turnMessage(t, self, nameOf));
    const turnCosts = raw.map((t, i) => this.turnCost(t, self, turns[i]!, nameOf));
    const waiting = this.waitingPins.of(this.prefixes.linesFor(input.def));
    const inboxCost = inbox ? this.inboxTokens(closing[0]!, inbox, last) : 0;
    const fixed = PROMPT_OVERHEAD + prefix.tokens + waiting.tokens + inboxCost + closing.slice(1).reduce((n, m) => n + messageTokens(m), 0);
    // Dropping the oldest first: summaries (one message together), then turns.
    const total = (drop: number): number => {
      const memo = this.summariesMessage.of(summaries.slice(Math.min(drop, summaries.length))).tokens;
      const from = Math.max(0, drop - summaries.length);
      let sum = fixed + memo;
      for (let i = from; i < turnCosts.length; i++) sum += turnCosts[i]!;
      return sum;
    };
    const items = summaries.length + raw.length;
    const before = total(0);
    let drop = 0;
    let after = before;
    while (drop < items && after > this.options.budget) after = total(++drop);
    const kept = summaries.slice(Math.min(drop, summaries.length));
    const memo: ChatMessage[] = kept.length ? [{ role: 'user', content: this.summariesMessage.of(kept).text }] : [];
    // Pins made since the last summary come after the turns: a new one leaves the prefix as it was.
    const messages = [system, ...memo, ...turns.slice(Math.max(0, drop - summaries.length)), ...(waiting.message ? [waiting.message] : []), ...closing];
    this.prune();
    if (call) this.report(input, drop, summaries, raw, before, after, waiting.clipped);
    return messages;
  }

  /**
   * Before the tokenizer has loaded (a fresh process's first call): the prompt as the counted build makes it
   * when there is nothing to trim, if nothing is pinned or summarised yet and a byte count proves it fits
   * the budget (every token is at least one byte); else null, and counting loads the tokenizer.
   */
  private beforeTokenizer(input: PrefixInput, call: PromptInput['call'] | null): ChatMessage[] | null {
    if (this.memory.pinned.length > 0 || this.memory.summaries.length > 0) return null;
    const nameOf = namesFor(input.def);
    const closing = call ? closingMessages({ ...input, call }) : [];
    let raw = this.memory.rawTurns;
    const inbox = call?.inbox;
    const last = raw[raw.length - 1];
    if (inbox && last && 'text' in inbox && last.text === inbox.text) raw = raw.slice(0, -1);
    const messages: ChatMessage[] = [{ role: 'system', content: this.prefixes.unpinnedText(input) }, ...raw.map((t) => turnMessage(t, input.persona.id, nameOf)), ...closing];
    const bound = messages.reduce((n, m) => n + MESSAGE_OVERHEAD + Buffer.byteLength(m.content, 'utf8'), PROMPT_OVERHEAD);
    return bound <= this.options.budget ? messages : null;
  }

  /**
   * Tokens of the inbox message. One that quotes the latest turn (or the brief) after its heading is its
   * heading (counted once per text) plus the quote's own count, so a turn's text is tokenized only once.
   */
  private inboxTokens(message: ChatMessage, inbox: Inbox, last: RawTurn | undefined): number {
    const text = 'text' in inbox ? inbox.text : null;
    const heading = text === null ? null : quoteHeading(message.content, text);
    if (text === null || heading === null) return messageTokens(message);
    const quoted = last?.text === text ? last.tokens : inbox.kind === 'brief' ? this.pieces.of(text) : null;
    return quoted === null ? messageTokens(message) : MESSAGE_OVERHEAD + this.pieces.of(heading) + quoted;
  }

  /** One memory_trimmed per build that dropped material, and once per pinned version that had to give. */
  private report(input: PrefixInput, drop: number, summaries: readonly Summary[], raw: readonly RawTurn[], before: number, after: number, waitingClipped: number): void {
    const nameOf = namesFor(input.def);
    const pinned = this.prefixes.pinnedNews(waitingClipped);
    if (drop === 0 && pinned.labels.length === 0) return;
    const items: Item[] = [...summaries.map((s): Item => ({ kind: 'summary', s })), ...raw.map((t): Item => ({ kind: 'turn', t }))];
    this.options.publish?.(
      event('memory_trimmed', {
        persona: input.persona.id,
        dropped: [...pinned.labels, ...items.slice(0, drop).map((i) => trimLabel(i, nameOf))],
        // Before: as the prompt would be with every pinned item verbatim and nothing dropped.
        tokens_before: before + pinned.extraTokens,
        tokens_after: after,
        budget: this.options.budget,
      }),
    );
  }

  /** Forgets counts of turns that have left the raw window. */
  private prune(): void {
    if (this.turnTokens.size <= 2 * this.memory.recent.length + 32) return;
    const live = new Set(this.memory.recent.map((t) => t.id));
    for (const id of this.turnTokens.keys()) if (!live.has(id)) this.turnTokens.delete(id);
  }
}

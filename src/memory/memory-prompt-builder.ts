import type { ChatMessage } from '../llm/chat-model.js';
import { event, type EngineEvent } from '../engine/event-map.js';
import type { Inbox } from '../engine/inbox.js';
import type { Memory } from './memory.js';
import type { RawTurn, Summary } from './memory-state.js';
import { namesFor } from './names.js';
import { PieceTokens } from './piece-tokens.js';
import { PromptPrefixes, type PinnedNews, type Prefix } from './prompt-prefix.js';
import { closingMessages, type PrefixInput, type PromptBuilder, type PromptInput } from './prompt-builder.js';
import { trimLabel, type NameOf } from './render.js';
import { SummariesMessage } from './summaries-message.js';
import { WaitingPins, type WaitingMessage } from './waiting-pins.js';
import { MAX_COUNTED_CHARS, MESSAGE_OVERHEAD, messageBound, messageTokens, PROMPT_OVERHEAD, tokenBound, tokenizerReady } from './tokens.js';

/** Settings of the memory prompt builder. */
export interface MemoryPromptOptions {
  /** Max prompt tokens per call (team.json `memory.prompt_budget`). */
  budget: number;
  /** Where `memory_trimmed` goes. */
  publish?: (e: EngineEvent) => void;
}

type Item = { kind: 'summary'; s: Summary } | { kind: 'turn'; t: RawTurn };

const NO_MESSAGES: readonly ChatMessage[] = [];

/** A persona's prompt head as last built, and what it was built from (the prefix is not part of it: it is counted apart). */
interface Head {
  nameOf: NameOf;
  /** The summaries it holds: how many, and the ids of the first and last (ids are never reused). */
  summaries: number;
  first: number;
  last: number;
  memo: ChatMessage | null;
  memoTokens: number;
  /** The raw turns it holds, oldest first, and their messages. */
  raws: RawTurn[];
  turns: ChatMessage[];
  /** Bounds on the turns' tokens as messages (their bytes; known without counting), and their sum. */
  bounds: number[];
  turnBound: number;
  /** Exact tokens of the first `costs.length` turns as messages (counted only when a prompt's bound is over the budget), and their sum. */
  costs: number[];
  turnTokens: number;
}

/** The heading of a message that ends by quoting `text` after a newline, where o200k splits (so the counts add up), or null. */
function quoteHeading(content: string, text: string): string | null {
  const at = content.length - text.length;
  if (at <= 0 || content[at - 1] !== '\n' || !content.endsWith(text) || !/^[#\-\p{L}]/u.test(text)) return null;
  return content.slice(0, at);
}

/** A turn's message as the personas other than its author get it, with a bound on its tokens (see turnBoundOf). */
interface QuotedTurn {
  nameOf: NameOf;
  message: ChatMessage;
  bound: number;
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
 * Built by appending: each persona's head (system message, summaries, raw turns) is kept as built
 * messages with their token total, and a call renders and counts only the turns recorded since that
 * persona's last call (the head is rebuilt when the prefix or the summaries change). Counts are cached
 * (PromptPrefixes, SummariesMessage, WaitingPins): the prefix once per persona and pinned version, a turn
 * once per view, a summary once, a pin once; only the inbox is counted on every call. Fitting (dropping
 * the oldest) runs only when the prompt is over the budget.
 */
export class MemoryPromptBuilder implements PromptBuilder {
  private readonly prefixes: PromptPrefixes;
  private readonly summariesMessage = new SummariesMessage();
  private readonly turnTokens = new Map<number, number>();
  private readonly quoted = new Map<number, QuotedTurn>();
  private readonly pieces = new PieceTokens();
  private readonly waitingPins: WaitingPins;
  private readonly heads = new Map<string, Head>();

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
    // A persona's own turn is its text as is: the turn's own count.
    if (t.author === self) return MESSAGE_OVERHEAD + this.memory.tokensOf(t);
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
    return this.memory.tokensOf(t) - this.pieces.of(word) + this.pieces.of(` ${word}`);
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
    // `call` is the input's own (build passes input.call): the input is a PromptInput then.
    const closing = call ? closingMessages(input as PromptInput) : NO_MESSAGES;
    const inbox = call?.inbox;
    const recent = this.memory.rawTurns;
    const last = recent[recent.length - 1];
    // The inbox quotes the latest message; do not send it twice.
    const count = inbox && last && 'text' in inbox && last.text === inbox.text ? recent.length - 1 : recent.length;
    const summaries = this.memory.summaries;
    const head = this.headOf(self, summaries, recent, count, nameOf);
    const waiting = this.waitingPins.of(this.prefixes.linesFor(input.def));
    this.prune();
    // A bound on the prompt's tokens without counting (every token is at least one byte): within the budget,
    // the usual case, nothing is counted and nothing is fitted.
    let bound = PROMPT_OVERHEAD + prefix.bound + waiting.bound + head.memoTokens + head.turnBound;
    for (const m of closing) bound += messageBound(m);
    let before = -1;
    if (bound > this.options.budget) before = this.fixedTokens(prefix, waiting, closing, inbox, last) + head.memoTokens + this.countTurns(head, self, nameOf);
    if (before <= this.options.budget) {
      if (call) {
        const pinned = this.prefixes.pinnedNews(waiting.clipped);
        if (pinned.labels.length > 0) {
          const exact = before >= 0 ? before : this.fixedTokens(prefix, waiting, closing, inbox, last) + head.memoTokens + this.countTurns(head, self, nameOf);
          this.report(input, pinned, 0, summaries, head, exact, exact);
        }
      }
      // The system text is joined per call, not kept in the head: a waiting session holds no copy of its prompts.
      // One array filled in order (no spread of the turns and the tail into intermediate ones).
      const messages: ChatMessage[] = [{ role: 'system', content: prefix.text }];
      if (head.memo) messages.push(head.memo);
      for (const m of head.turns) messages.push(m);
      if (waiting.message) messages.push(waiting.message);
      for (const m of closing) messages.push(m);
      return messages;
    }
    const fixed = before - head.memoTokens - head.turnTokens;
    // Dropping the oldest first: summaries (one message together), then turns.
    const total = (drop: number): number => {
      const memo = this.summariesMessage.of(summaries.slice(Math.min(drop, summaries.length))).tokens;
      const from = Math.max(0, drop - summaries.length);
      let sum = fixed + memo;
      for (let i = from; i < head.costs.length; i++) sum += head.costs[i]!;
      return sum;
    };
    const items = summaries.length + count;
    let drop = 0;
    let after = before;
    while (drop < items && after > this.options.budget) after = total(++drop);
    const kept = summaries.slice(Math.min(drop, summaries.length));
    const memo: ChatMessage[] = kept.length ? [{ role: 'user', content: this.summariesMessage.of(kept).text }] : [];
    const tail = waiting.message ? [waiting.message, ...closing] : closing;
    // Pins made since the last summary come after the turns: a new one leaves the prefix as it was.
    const messages = [{ role: 'system', content: prefix.text } as ChatMessage, ...memo, ...head.turns.slice(Math.max(0, drop - summaries.length)), ...tail];
    if (call) this.report(input, this.prefixes.pinnedNews(waiting.clipped), drop, summaries, head, before, after);
    return messages;
  }

  /** Exact tokens of everything but the summaries and the turns (counted only when needed). */
  private fixedTokens(prefix: Prefix, waiting: WaitingMessage, closing: readonly ChatMessage[], inbox: Inbox | undefined, last: RawTurn | undefined): number {
    let n = PROMPT_OVERHEAD + prefix.tokens + waiting.tokens + (inbox ? this.inboxTokens(closing[0]!, inbox, last) : 0);
    for (let i = 1; i < closing.length; i++) n += messageTokens(closing[i]!);
    return n;
  }

  /** The exact tokens of the head's turns, counting those not counted yet. */
  private countTurns(head: Head, self: string, nameOf: NameOf): number {
    for (let i = head.costs.length; i < head.raws.length; i++) {
      const cost = this.turnCost(head.raws[i]!, self, head.turns[i]!, nameOf);
      head.costs.push(cost);
      head.turnTokens += cost;
    }
    return head.turnTokens;
  }

  /** A bound on a turn's tokens as a message: its bytes (a persona's own turn: its count when it was made; a turn too long for the bytes to bound: counted). */
  private turnBoundOf(t: RawTurn, self: string, message: ChatMessage, nameOf: NameOf): number {
    if (t.author === self) return MESSAGE_OVERHEAD + (this.memory.counted(t) ? t.tokens : tokenBound(t.text));
    if (t.text.length > MAX_COUNTED_CHARS || message.content.length > MAX_COUNTED_CHARS) return this.turnCost(t, self, message, nameOf);
    return MESSAGE_OVERHEAD + tokenBound(message.content);
  }

  /**
   * The head of a persona's prompt (summaries message, the raw turns before the inbox) with its tokens, as
   * built for its last call and extended by the turns recorded since: a turn is rendered and counted once per
   * persona. A new prefix (pins settled) leaves the head as it is; new summaries rebuild the summaries message
   * and drop the turns they took from the front of the raw window, keeping the rest as built.
   */
  private headOf(self: string, summaries: readonly Summary[], recent: readonly RawTurn[], count: number, nameOf: NameOf): Head {
    const first = summaries[0]?.id ?? -1;
    const lastSummary = summaries[summaries.length - 1]?.id ?? -1;
    let head = this.heads.get(self);
    if (head && head.nameOf === nameOf && (head.summaries !== summaries.length || head.first !== first || head.last !== lastSummary)) {
      const memo = this.summariesMessage.of(summaries);
      head.summaries = summaries.length;
      head.first = first;
      head.last = lastSummary;
      head.memo = summaries.length ? { role: 'user', content: memo.text } : null;
      head.memoTokens = memo.tokens;
      // The turns the summaries took leave from the front; the head keeps the rest if they still lead the window.
      const gone = recent.length > 0 ? head.raws.findIndex((t) => t.id === recent[0]!.id) : -1;
      if (gone > 0) {
        for (let i = 0; i < gone; i++) head.turnBound -= head.bounds[i]!;
        for (let i = 0; i < Math.min(gone, head.costs.length); i++) head.turnTokens -= head.costs[i]!;
        head.raws.splice(0, gone);
        head.turns.splice(0, gone);
        head.bounds.splice(0, gone);
        head.costs.splice(0, gone);
      } else if (gone < 0) {
        head.raws = [];
        head.turns = [];
        head.bounds = [];
        head.turnBound = 0;
        head.costs = [];
        head.turnTokens = 0;
      }
    }
    const n = head?.raws.length ?? 0;
    const extends_ = head !== undefined && n <= count && (n === 0 || (recent[0]!.id === head.raws[0]!.id && recent[n - 1]!.id === head.raws[n - 1]!.id));
    if (head && (!extends_ || head.nameOf !== nameOf)) {
      // Built again from nothing in the same object and arrays (with many personas most calls find their head stale).
      const memo = this.summariesMessage.of(summaries);
      // Its summaries message stays as it is when the summaries are the same ones.
      if (head.memo?.content !== memo.text) head.memo = summaries.length ? { role: 'user', content: memo.text } : null;
      head.nameOf = nameOf;
      head.summaries = summaries.length;
      head.first = first;
      head.last = lastSummary;
      head.memoTokens = memo.tokens;
      head.raws.length = 0;
      head.turns.length = 0;
      head.bounds.length = 0;
      head.turnBound = 0;
      head.costs.length = 0;
      head.turnTokens = 0;
    } else if (!head) {
      const memo = this.summariesMessage.of(summaries);
      head = {
        nameOf,
        summaries: summaries.length,
        first,
        last: lastSummary,
        memo: summaries.length ? { role: 'user', content: memo.text } : null,
        memoTokens: memo.tokens,
        raws: [],
        turns: [],
        bounds: [],
        turnBound: 0,
        costs: [],
        turnTokens: 0,
      };
      this.heads.set(self, head);
    }
    for (let i = head.raws.length; i < count; i++) {
      const t = recent[i]!;
      let message: ChatMessage;
      let bound: number;
      if (t.author === self) {
        message = turnMessage(t, self, nameOf);
        bound = this.turnBoundOf(t, self, message, nameOf);
      } else ({ message, bound } = this.quotedView(t, self, nameOf));
      head.raws.push(t);
      head.turns.push(message);
      head.bounds.push(bound);
      head.turnBound += bound;
    }
    return head;
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
    const quoted = last?.text === text ? this.memory.tokensOf(last) : inbox.kind === 'brief' ? this.pieces.of(text) : null;
    return quoted === null ? messageTokens(message) : MESSAGE_OVERHEAD + this.pieces.of(heading) + quoted;
  }

  /** One memory_trimmed per build that dropped material, and once per pinned version that had to give (`pinned`: what the prefixes have not told yet). */
  private report(input: PrefixInput, pinned: PinnedNews, drop: number, summaries: readonly Summary[], head: Head, before: number, after: number): void {
    if (drop === 0 && pinned.labels.length === 0) return;
    const nameOf = namesFor(input.def);
    const raw = this.memory.recent;
    const items: Item[] = [...summaries.map((s): Item => ({ kind: 'summary', s })), ...raw.slice(0, head.raws.length).map((t): Item => ({ kind: 'turn', t }))];
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

  /**
   * A turn as every persona but its author sees it (a user message quoting it under its author's name) and its
   * bound: rendered once per turn and shared by those personas' heads, not once per persona.
   */
  private quotedView(t: RawTurn, self: string, nameOf: NameOf): QuotedTurn {
    let view = this.quoted.get(t.id);
    if (view === undefined || view.nameOf !== nameOf) {
      const message = turnMessage(t, self, nameOf);
      view = { nameOf, message, bound: this.turnBoundOf(t, self, message, nameOf) };
      this.quoted.set(t.id, view);
    }
    return view;
  }

  /** Forgets counts and views of turns that have left the raw window. */
  private prune(): void {
    const recent = this.memory.rawTurns;
    if (this.turnTokens.size <= 2 * recent.length + 32 && this.quoted.size <= 2 * recent.length + 32) return;
    const live = new Set(recent.map((t) => t.id));
    for (const id of this.turnTokens.keys()) if (!live.has(id)) this.turnTokens.delete(id);
    for (const id of this.quoted.keys()) if (!live.has(id)) this.quoted.delete(id);
  }
}

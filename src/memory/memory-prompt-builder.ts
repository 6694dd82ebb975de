import type { ChatMessage } from '../llm/chat-model.js';
import type { MachineDefinition } from '../engine/definition.js';
import { event, type EngineEvent } from '../engine/event-map.js';
import type { Memory } from './memory.js';
import type { RawTurn, Summary } from './memory-state.js';
import { namesFor } from './names.js';
import { fitPinned, PINNED_BUDGET_SHARE, PinnedLines, pinnedTrimLabels, type PinnedFit } from './pinned-fit.js';
import { closingMessages, systemPromptPieces, type PromptBuilder, type PromptInput } from './prompt-builder.js';
import { PieceTokens } from './piece-tokens.js';
import { summaryText, SUMMARIES_HEADER, trimLabel, type NameOf } from './render.js';
import { countTokens, messageTokens, PROMPT_OVERHEAD } from './tokens.js';

/** Settings of the memory prompt builder. */
export interface MemoryPromptOptions {
  /** Max prompt tokens per call (team.json `memory.prompt_budget`). */
  budget: number;
  /** Where `memory_trimmed` goes. */
  publish?: (e: EngineEvent) => void;
}

type Item = { kind: 'summary'; s: Summary } | { kind: 'turn'; t: RawTurn };

function turnMessage(t: RawTurn, self: string, nameOf: NameOf): ChatMessage {
  if (t.author === self) return { role: 'assistant', content: t.text };
  return { role: 'user', content: `[${nameOf(t.author)}]: ${t.text}` };
}

type Prefix = { def: MachineDefinition; personaPrompt: string; brief: string; version: number; text: string; tokens: number };
type SystemCounts = { def: MachineDefinition; personaPrompt: string; text: string; alone: number; followed: number };

/**
 * Memory on: system = persona prompt, roster, protocol, brief and pinned decisions (a prefix that
 * stays byte-identical until something new is pinned, so providers can cache it); then the
 * summaries, the recent raw turns and the inbox. Over the budget, the oldest non-pinned material
 * goes first and `memory_trimmed` says what went; pinned items are capped, and condensed to their
 * gist when they alone would take more than their share of the budget.
 *
 * Token counts are cached: the prefix once per persona and pinned version, a turn once per view,
 * the summaries block once per set of summaries; only the inbox is counted on every call.
 */
export class MemoryPromptBuilder implements PromptBuilder {
  private pinned: { def: MachineDefinition; lines: PinnedLines; version: number; fit: PinnedFit; reported: boolean } | null = null;
  private readonly prefixes = new Map<string, Prefix>();
  private readonly systems = new Map<string, SystemCounts>();
  private readonly pieces = new PieceTokens();
  private readonly turnTokens = new Map<number, number>();
  private readonly memos = new Map<string, { text: string; tokens: number }>();
  private readonly blocks = new WeakMap<Summary, { text: string; nl: number; end: number }>();

  constructor(
    readonly memory: Memory,
    private readonly options: MemoryPromptOptions,
  ) {}

  /** The pinned block for the current pins, fitted to its share of the budget (recomputed when something is pinned). */
  private pinnedFit(def: MachineDefinition): { fit: PinnedFit; fresh: boolean } {
    const version = this.memory.pinnedVersion;
    if (this.pinned && this.pinned.def === def && this.pinned.version === version) return { fit: this.pinned.fit, fresh: false };
    const lines = this.pinned?.def === def ? this.pinned.lines : new PinnedLines(namesFor(def));
    const previous = this.pinned?.def === def ? this.pinned.fit : undefined;
    const fit = fitPinned(this.memory.pinned, lines, Math.floor(this.options.budget * PINNED_BUDGET_SHARE), previous);
    this.pinned = { def, lines, version, fit, reported: false };
    return { fit, fresh: true };
  }

  /** The system prompt of a persona and its tokens, alone or followed by a blank line (counted once per persona). */
  private systemOf(input: Pick<PromptInput, 'def' | 'persona' | 'personaPrompt'>): SystemCounts {
    const cached = this.systems.get(input.persona.id);
    if (cached && cached.def === input.def && cached.personaPrompt === input.personaPrompt) return cached;
    const pieces = systemPromptPieces(input);
    const head = this.pieces.sum(pieces.slice(0, -1));
    const protocol = pieces[pieces.length - 1]!;
    const counts = { def: input.def, personaPrompt: input.personaPrompt, text: pieces.join(''), alone: head + this.pieces.of(protocol), followed: head + this.pieces.of(`${protocol}\n\n`) };
    this.systems.set(input.persona.id, counts);
    return counts;
  }

  private prefixOf(input: Pick<PromptInput, 'def' | 'persona' | 'personaPrompt' | 'session'>): Prefix {
    const brief = input.session.brief || this.memory.brief;
    const version = this.memory.pinnedVersion;
    const cached = this.prefixes.get(input.persona.id);
    if (cached && cached.def === input.def && cached.personaPrompt === input.personaPrompt && cached.brief === brief && cached.version === version) return cached;
    const block = this.pinnedFit(input.def).fit;
    // Parts cut after a blank line add up exactly; each is counted once and shared (see PieceTokens).
    const system = this.systemOf(input);
    const briefPart = brief ? `## The brief\n${brief}` : '';
    let tokens = 4 + (briefPart || block.text ? system.followed : system.alone) + block.tokens;
    if (briefPart) tokens += this.pieces.of(block.text ? `${briefPart}\n\n` : briefPart);
    const text = [system.text, briefPart, block.text].filter((p) => p !== '').join('\n\n');
    const prefix = { def: input.def, personaPrompt: input.personaPrompt, brief, version, text, tokens };
    this.prefixes.set(input.persona.id, prefix);
    return prefix;
  }

  /** The stable prefix for a persona: system prompt, brief, pinned decisions. */
  prefix(input: Pick<PromptInput, 'def' | 'persona' | 'personaPrompt' | 'session'>): string {
    return this.prefixOf(input).text;
  }

  private turnCost(t: RawTurn, self: string, message: ChatMessage): number {
    // A persona's own turn is its text as is: the count made when the turn was stored.
    if (t.author === self) return 4 + t.tokens;
    let n = this.turnTokens.get(t.id);
    if (n === undefined) {
      n = messageTokens(message);
      this.turnTokens.set(t.id, n);
    }
    return n;
  }

  /** A summary's block and its tokens, followed by a newline and at the end (counted once per summary). */
  private summaryBlock(summary: Summary): { text: string; nl: number; end: number } {
    let block = this.blocks.get(summary);
    if (!block) {
      const text = summaryText(summary);
      block = { text, nl: countTokens(`${text}\n`), end: countTokens(text) };
      this.blocks.set(summary, block);
    }
    return block;
  }

  /** The summaries message for a run of summaries, and its tokens (once per set of summaries). */
  private memo(summaries: readonly Summary[]): { text: string; tokens: number } {
    if (summaries.length === 0) return { text: '', tokens: 0 };
    const key = `${summaries[0]!.id}:${summaries[summaries.length - 1]!.id}:${summaries.length}`;
    let memo = this.memos.get(key);
    if (!memo) {
      if (this.memos.size > 256) this.memos.clear();
      const blocks = summaries.map((x) => this.summaryBlock(x));
      const text = `${SUMMARIES_HEADER}\n${blocks.map((b) => b.text).join('\n')}`;
      // Each block starts with "###" after a newline: header and blocks count apart, each once.
      const tokens = 4 + this.pieces.of(`${SUMMARIES_HEADER}\n`) + blocks.reduce((n, b, i) => n + (i === blocks.length - 1 ? b.end : b.nl), 0);
      memo = { text, tokens };
      this.memos.set(key, memo);
    }
    return memo;
  }

  build(input: PromptInput): ChatMessage[] {
    const nameOf = namesFor(input.def);
    const self = input.persona.id;
    const prefix = this.prefixOf(input);
    const system: ChatMessage = { role: 'system', content: prefix.text };
    const closing = closingMessages(input);
    const inbox = input.call.inbox;
    let raw = this.memory.recent;
    const last = raw[raw.length - 1];
    // The inbox quotes the latest message; do not send it twice.
    if (last && 'text' in inbox && last.text === inbox.text) raw = raw.slice(0, -1);
    const summaries = this.memory.summaries;
    const turns = raw.map((t) => turnMessage(t, self, nameOf));
    const turnCosts = raw.map((t, i) => this.turnCost(t, self, turns[i]!));
    const fixed = PROMPT_OVERHEAD + prefix.tokens + closing.reduce((n, m) => n + messageTokens(m), 0);
    // Dropping the oldest first: summaries (one message together), then turns.
    const total = (drop: number): number => {
      const memo = this.memo(summaries.slice(Math.min(drop, summaries.length))).tokens;
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
    const memo: ChatMessage[] = kept.length ? [{ role: 'user', content: this.memo(kept).text }] : [];
    const messages = [system, ...memo, ...turns.slice(Math.max(0, drop - summaries.length)), ...closing];
    this.prune();
    this.report(input, drop, summaries, raw, before, after);
    return messages;
  }

  /** One memory_trimmed per build that dropped material, and once per pinned version that had to give. */
  private report(input: PromptInput, drop: number, summaries: readonly Summary[], raw: readonly RawTurn[], before: number, after: number): void {
    const nameOf = namesFor(input.def);
    const fit = this.pinned?.fit;
    const pinnedNews = this.pinned && !this.pinned.reported ? pinnedTrimLabels(this.pinned.fit) : [];
    if (this.pinned) this.pinned.reported = true;
    if (drop === 0 && pinnedNews.length === 0) return;
    const items: Item[] = [...summaries.map((s): Item => ({ kind: 'summary', s })), ...raw.map((t): Item => ({ kind: 'turn', t }))];
    // Before: as the prompt would be with every pinned item verbatim and nothing dropped.
    const pinnedExtra = fit ? Math.max(0, fit.fullTokens - fit.tokens) : 0;
    this.options.publish?.(event('memory_trimmed', {
      persona: input.persona.id,
      dropped: [...pinnedNews, ...items.slice(0, drop).map((i) => trimLabel(i, nameOf))],
      tokens_before: before + (pinnedNews.length ? pinnedExtra : 0),
      tokens_after: after,
      budget: this.options.budget,
    }));
  }

  /** Forgets counts of turns that have left the raw window. */
  private prune(): void {
    if (this.turnTokens.size <= 2 * this.memory.recent.length + 32) return;
    const live = new Set(this.memory.recent.map((t) => t.id));
    for (const id of this.turnTokens.keys()) if (!live.has(id)) this.turnTokens.delete(id);
  }
}

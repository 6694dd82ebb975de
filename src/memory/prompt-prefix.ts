import type { MachineDefinition } from '../engine/definition.js';
import type { Memory } from './memory.js';
import { namesFor } from './names.js';
import { fitPinned, PINNED_BUDGET_SHARE, PinnedLines, pinnedTrimLabels, type PinnedFit } from './pinned-fit.js';
import { PieceTokens } from './piece-tokens.js';
import { systemPrompt, systemPromptPieces, type PromptInput } from './prompt-builder.js';
import { MESSAGE_OVERHEAD, tokenBound } from './tokens.js';

/** A persona's prompt prefix, a bound on its tokens as the system message (known without counting) and its exact count (made when first read). */
export interface Prefix {
  readonly text: string;
  bound: number;
  readonly tokens: number;
}

/** A built prefix: its parts (the text is joined when read: a waiting session keeps no copy), its bound, and its count made when first read. */
class BuiltPrefix implements Prefix {
  private counted: number | undefined;

  constructor(
    private readonly parts: readonly string[],
    public bound: number,
    /** The system message's count without the brief and the pinned block (made once per persona and process). */
    private readonly system: number,
    /** The pinned block, counted when first read. */
    private readonly block: { readonly tokens: number },
    private readonly briefPiece: string | null,
    private readonly pieces: PieceTokens,
  ) {}

  get text(): string {
    // Concatenated, not joined: V8 links the parts (a rope of a few cells) instead of copying the system prompt
    // per call; the text is copied once, where a reader needs it flat (the request body), if at all.
    const parts = this.parts;
    let text = parts[0] ?? '';
    for (let i = 1; i < parts.length; i++) text = `${text}\n\n${parts[i]}`;
    return text;
  }

  get tokens(): number {
    this.counted ??= this.system + this.block.tokens + (this.briefPiece === null ? 0 : this.pieces.of(this.briefPiece));
    return this.counted;
  }
}

/** What the pinned block gave up that was not told yet. */
export interface PinnedNews {
  readonly labels: readonly string[];
  readonly extraTokens: number;
}

// Nothing new (most calls): one object, not one per call.
const NOTHING_NEW: PinnedNews = Object.freeze({ labels: Object.freeze([]), extraTokens: 0 });

// The prefix's parts, not its text: a session waiting for its user holds no copy of its personas' prompts.
type Cached = { def: MachineDefinition; personaPrompt: string; brief: string; version: number; prefix: Prefix };
/** The brief and the pinned block as they follow the system prompt, for one brief and settled version. */
type PrefixTail = {
  def: MachineDefinition;
  brief: string;
  version: number;
  block: PinnedFit;
  /** The parts after the system prompt (none when there is no brief and nothing pinned). */
  parts: readonly string[];
  /** The brief as counted (with the blank line before the block when one follows), or null. */
  briefPiece: string | null;
  /** A bound on the tokens of `parts` after the system prompt's blank line. */
  bound: number;
};
type SystemCounts = { personaPrompt: string; text: string; alone: number; followed: number };

// System prompts and their counts, per team definition and persona: the same for every session of a team, so
// kept once per process (a server's thousand sessions held five copies each, 23 KiB a session).
const systemsByDef = new WeakMap<MachineDefinition, Map<string, SystemCounts>>();

/**
 * The stable prompt prefix per persona (persona prompt, roster, protocol, brief, the block of settled
 * pins), built and counted once per persona and settled version. Parts are cut after a blank line, where counts add
 * up exactly, so shared parts (roster lines, protocol, brief, pinned block) are tokenized only once.
 */
export class PromptPrefixes {
  private pinned: { def: MachineDefinition; version: number; fit: PinnedFit } | null = null;
  // The pinned version last told in memory_trimmed (once per version that had to give).
  private reportedVersion = -1;
  private lines: { def: MachineDefinition; lines: PinnedLines } | null = null;
  private tail: PrefixTail | null = null;
  private readonly prefixes = new Map<string, Cached>();
  private readonly pieces = new PieceTokens();

  constructor(
    private readonly memory: Memory,
    private readonly budget: number,
  ) {}

  /** The prefix for a persona's call. */
  of(input: Pick<PromptInput, 'def' | 'persona' | 'personaPrompt' | 'session'>): Prefix {
    const brief = input.session.brief || this.memory.brief;
    const version = this.memory.settledVersion;
    const cached = this.prefixes.get(input.persona.id);
    if (cached && cached.def === input.def && cached.personaPrompt === input.personaPrompt && cached.brief === brief && cached.version === version) {
      return cached.prefix;
    }
    const system = this.systemOf(input);
    const tail = this.tailOf(input.def, brief, version);
    const parts = tail.parts.length === 0 ? [system.text] : [system.text, ...tail.parts];
    // The system prompt's exact count (made once per persona and process: it never changes) and the bounds of
    // the pieces counted below (each piece's bytes, or three per unit past MAX_COUNTED_CHARS), so the sum bounds their counts.
    const systemTokens = MESSAGE_OVERHEAD + (tail.parts.length > 0 ? system.followed : system.alone);
    // One object while nothing changes (a head built on it stays valid); its text joined per call, never kept.
    const prefix = new BuiltPrefix(parts, systemTokens + tail.bound, systemTokens, tail.block, tail.briefPiece, this.pieces);
    this.prefixes.set(input.persona.id, { def: input.def, personaPrompt: input.personaPrompt, brief, version, prefix });
    return prefix;
  }

  /**
   * What follows the system prompt in every persona's prefix (the brief and the pinned block), with the bound on
   * its tokens: made once per brief and settled version, not once per persona.
   */
  private tailOf(def: MachineDefinition, brief: string, version: number): PrefixTail {
    const was = this.tail;
    if (was && was.def === def && was.brief === brief && was.version === version) return was;
    const block = this.pinnedFit(def);
    const briefPart = brief ? `## The brief\n${brief}` : '';
    const briefPiece = briefPart ? (block.text ? `${briefPart}\n\n` : briefPart) : null;
    const parts = briefPart ? (block.text ? [briefPart, block.text] : [briefPart]) : block.text ? [block.text] : [];
    const tail = { def, brief, version, block, parts, briefPiece, bound: (briefPiece === null ? 0 : tokenBound(briefPiece)) + block.bytes };
    this.tail = tail;
    return tail;
  }

  /** The prefix's text when nothing is pinned, built without counting (before the tokenizer has loaded). */
  unpinnedText(input: Pick<PromptInput, 'def' | 'persona' | 'personaPrompt' | 'session'>): string {
    const brief = input.session.brief || this.memory.brief;
    const system = systemPrompt(input);
    return brief ? `${system}\n\n## The brief\n${brief}` : system;
  }

  /** What the pinned block gave up since this was last asked ([] when nothing, or when already told); `clippedElsewhere` pins cut in the waiting message count too. */
  pinnedNews(clippedElsewhere = 0): PinnedNews {
    const version = this.memory.pinnedVersion;
    if (!this.pinned || this.reportedVersion === version) return NOTHING_NEW;
    this.reportedVersion = version;
    const { fit } = this.pinned;
    const labels = pinnedTrimLabels({ condensed: fit.condensed, omitted: fit.omitted, clipped: fit.clipped + clippedElsewhere });
    // A verbatim block is all its items in full (nothing extra), and is not counted for it.
    return { labels, extraTokens: fit.condensed === 0 && fit.omitted === 0 ? 0 : Math.max(0, fit.fullTokens - fit.tokens) };
  }

  /** Renders and counts pinned lines once each (shared with the block of waiting pins). */
  linesFor(def: MachineDefinition): PinnedLines {
    if (this.lines?.def !== def) this.lines = { def, lines: new PinnedLines(namesFor(def)) };
    return this.lines.lines;
  }

  /** The pinned block for the settled pins, fitted to its share of the budget (recomputed when pins join it). */
  private pinnedFit(def: MachineDefinition): PinnedFit {
    const version = this.memory.settledVersion;
    if (this.pinned && this.pinned.def === def && this.pinned.version === version) return this.pinned.fit;
    const same = this.pinned?.def === def ? this.pinned : null;
    const lines = this.linesFor(def);
    // Every pin is settled when pins join the block (the usual case): the list as it is, not a copy.
    const pinned = this.memory.pinned;
    const settled = this.memory.settledPins;
    const fit = fitPinned(settled === pinned.length ? pinned : pinned.slice(0, settled), lines, Math.floor(this.budget * PINNED_BUDGET_SHARE), same?.fit, this.memory.moved ?? undefined);
    this.pinned = { def, version, fit };
    return fit;
  }

  /** The system prompt of a persona and its tokens, alone or followed by a blank line (counted once per persona). */
  private systemOf(input: Pick<PromptInput, 'def' | 'persona' | 'personaPrompt'>): SystemCounts {
    let systems = systemsByDef.get(input.def);
    if (!systems) {
      systems = new Map();
      systemsByDef.set(input.def, systems);
    }
    const cached = systems.get(input.persona.id);
    if (cached && cached.personaPrompt === input.personaPrompt) return cached;
    const pieces = systemPromptPieces(input);
    const head = this.pieces.sum(pieces.slice(0, -1));
    const protocol = pieces[pieces.length - 1]!;
    const counts = { personaPrompt: input.personaPrompt, text: systemPrompt(input), alone: head + this.pieces.of(protocol), followed: head + this.pieces.of(`${protocol}\n\n`) };
    systems.set(input.persona.id, counts);
    return counts;
  }
}

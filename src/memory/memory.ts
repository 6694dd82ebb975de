import type { MemoryConfig } from '../config/team-schema.js';
import type { Directive } from '../directive/schema.js';
import type { EngineEvent } from '../engine/event-map.js';
import { Compressor } from './compressor.js';
import { emptyMemoryState, parseMemoryState, type MemoryState, type MovedPins, type Pinned, type RawTurn, type Summary } from './memory-state.js';
import { rankByQuery } from './relevance.js';
import { idAsName, pinnedLine, summaryText, type NameOf } from './render.js';
import type { Summariser } from './summariser.js';
import { countTokens, loadTokenizer, tokenizerReady } from './tokens.js';

/** What a memory needs: its settings, a summariser (none: never compresses), and where to publish events. */
export interface MemoryOptions {
  config: MemoryConfig;
  summariser?: Summariser | null;
  publish?: (e: EngineEvent) => void;
  nameOf?: NameOf;
  state?: MemoryState;
}

/** What `getRelevantContext` returns, as in seed 004. */
export interface RelevantContext {
  key_decisions: string[];
  recent_context: string[];
  compressed_history: (Summary & { score: number })[];
}

/** What `!memory` shows: pinned decisions and summaries, and how much is still raw. */
export interface MemorySnapshot {
  pinned: string[];
  /** Older pins moved out of the state (the journal keeps them). */
  moved?: MovedPins;
  summaries: Summary[];
  raw_turns: number;
  compressing: boolean;
  failures: number;
}

/** At most this many new pins wait after the recent turns; one more and they all join the pinned block. */
export const WAITING_PINS_MAX = 8;
/**
 * At most this many pins stay in the memory state once pins join the pinned block; the oldest beyond it are
 * moved out (counted in `moved`; the journal's events keep each one), so a checkpoint's size does not grow
 * with the session. More than the prompt's pinned block can show anyway: its share of the budget condenses
 * the oldest to their gist, then leaves them out.
 */
export const PINNED_KEPT = 128;

function verdictKey(by: string, of: string | undefined): string {
  return `${by}\u0000${of ?? ''}`;
}

/**
 * Rolling summarising memory (seed 004's AdvancedConversationMemory, improved): typed raw turns,
 * decisions pinned verbatim at once, background compression into structured summaries, and
 * summaries merged past the cap, never dropped.
 */
export class Memory {
  private readonly state: MemoryState;
  private readonly compressor: Compressor;
  readonly nameOf: NameOf;
  private pins = 0;
  private settles = 0;
  // Indexes over the pins (which are only ever appended), so recording a turn does not scan them all.
  private readonly decisions = new Set<string>();
  private readonly verdicts = new Map<string, Pinned>();
  // Turns whose tokens are not counted yet: a turn is counted when a count of it is read (a prompt over its
  // byte bound, a compression, a checkpoint), not as it is recorded, which is in front of the next call.
  private readonly uncounted = new Set<RawTurn>();

  constructor(private readonly options: MemoryOptions) {
    this.state = options.state ? structuredClone(options.state) : emptyMemoryState();
    this.nameOf = options.nameOf ?? idAsName;
    this.compressor = new Compressor(
      this.state,
      options.config,
      options.summariser ?? null,
      options.publish ?? (() => {}),
      () => this.settlePins(),
      () => this.countPending(),
    );
    for (const p of this.state.pinned) this.index(p);
  }

  /** Restores a memory from `toJSON()` data; damaged data gets a one-line error. */
  static fromJSON(data: unknown, options: Omit<MemoryOptions, 'state'>): Memory {
    return new Memory({ ...options, state: parseMemoryState(data) });
  }

  /** The memory as plain, serialisable data. */
  toJSON(): MemoryState {
    this.countPending();
    return structuredClone(this.state);
  }

  /** The memory as plain data without a copy, for a writer that serialises it at once (`toJSON()` gives a copy to keep). */
  get data(): Readonly<MemoryState> {
    this.countPending();
    return this.state;
  }

  /** The settings in force. */
  get config(): MemoryConfig {
    return this.options.config;
  }

  /** The session brief (the first user line). */
  get brief(): string {
    return this.state.brief;
  }

  /** Pinned decisions, approvals and rework requests, oldest first. */
  get pinned(): readonly Pinned[] {
    return this.state.pinned;
  }

  /** Changes whenever something new is pinned (prompt builders cache the waiting pins by it). */
  get pinnedVersion(): number {
    return this.pins;
  }

  /** How many pins (the oldest) are in the pinned block of the prompt's prefix; the rest wait after the recent turns. */
  get settledPins(): number {
    return Math.min(this.state.settled ?? this.state.pinned.length, this.state.pinned.length);
  }

  /** Changes whenever pins join the pinned block (prompt builders cache the prompt's prefix by it). */
  get settledVersion(): number {
    return this.settles;
  }

  /**
   * The waiting pins join the pinned block of the prefix: when a summary is made (the prefix after the
   * system prompt changes then anyway), or when too many wait. Until then the prefix stays byte-identical.
   */
  settlePins(): void {
    if (this.settledPins === this.state.pinned.length) return;
    this.movePinsOut();
    this.state.settled = this.state.pinned.length;
    this.settles += 1;
  }

  /** Pins moved out of the state so far (null: none). */
  get moved(): MovedPins | null {
    return this.state.moved ?? null;
  }

  // When the prefix changes anyway (pins join the block): the oldest past PINNED_KEPT leave the state.
  private movePinsOut(): void {
    const excess = this.state.pinned.length - PINNED_KEPT;
    if (excess <= 0) return;
    const out = this.state.pinned.splice(0, excess);
    const was = this.state.moved;
    this.state.moved = { count: (was?.count ?? 0) + out.length, first: was?.first ?? out[0]!.turn, last: out[out.length - 1]!.turn };
    for (const p of out) {
      // A decision moved out may be pinned again when it comes back (it is news to the prompt by then).
      if (p.kind === 'decision') this.decisions.delete(p.text);
      else if (this.verdicts.get(verdictKey(p.by, p.of)) === p) this.verdicts.delete(verdictKey(p.by, p.of));
    }
  }

  /** Summaries, oldest first. */
  get summaries(): readonly Summary[] {
    return this.state.summaries;
  }

  /** Raw turns not yet summarised, oldest first, with their token counts. */
  get recent(): readonly RawTurn[] {
    this.countPending();
    return this.state.raw;
  }

  /** The raw turns as they are: their texts, but a turn's `tokens` are its count only once `counted(turn)` (`tokensOf` counts it). */
  get rawTurns(): readonly RawTurn[] {
    return this.state.raw;
  }

  /** Whether a raw turn's tokens are counted (else its `tokens` are not its count yet). */
  counted(turn: RawTurn): boolean {
    return !this.uncounted.has(turn);
  }

  /** A raw turn's tokens, counted now if they were not. */
  tokensOf(turn: RawTurn): number {
    if (this.uncounted.delete(turn)) turn.tokens = countTokens(turn.text);
    return turn.tokens;
  }

  /** Counts the turns not counted yet (loading the tokenizer now if it still is not). */
  private countPending(): void {
    if (this.uncounted.size === 0) return;
    for (const t of this.uncounted) t.tokens = countTokens(t.text);
    this.uncounted.clear();
  }

  /** A user line: the first is the brief (kept whole in the prompt prefix), later ones are raw turns. */
  recordUser(text: string): void {
    if (this.state.brief === '') {
      this.state.brief = text;
      return;
    }
    this.addTurn(this.state.turn, 'user', text, undefined);
  }

  /** A persona's finished message. */
  recordAgent(m: { turnId: string; persona: string; text: string; turn: number }): void {
    this.state.turn = m.turn;
    this.addTurn(m.turn, m.persona, m.text, m.turnId);
  }

  /** A turn's directive: types the turn and pins its key decisions verbatim. */
  recordDirective(m: { turnId: string; persona: string; directive: Directive }): void {
    const d = m.directive;
    const given = d.key_decisions;
    let keys = 0;
    if (given) for (const k of given) if (k.trim() !== '') keys += 1;
    const raw = this.state.raw;
    let turn: RawTurn | undefined;
    // The directive's turn is the latest raw turn but for a user line recorded in between.
    for (let i = raw.length - 1; i >= 0 && !turn; i--) if (raw[i]!.turnId === m.turnId) turn = raw[i];
    if (turn) {
      const rejects = d.transition === 'REQUEST_REWORK' || d.approval_status === 'REQUEST_REWORK';
      const approves = d.transition === 'APPROVE_AND_HANDOFF' || d.approval_status === 'APPROVED';
      turn.type = rejects ? 'rejection' : keys > 0 ? 'decision' : approves ? 'approval' : 'general';
    }
    if (keys === 0) return;
    for (const k of given!) {
      const text = k.trim();
      // A decision already pinned is found in the key set, not by scanning the pins.
      if (text === '' || this.decisions.has(text)) continue;
      this.pin({ kind: 'decision', turn: this.state.turn, by: m.persona, text, repeats: 1 });
    }
  }

  /** An approval or rework request (by a persona or the user): pinned at once. */
  recordApproval(a: { by: string; of: string; status: 'APPROVED' | 'REQUEST_REWORK'; reason?: string }): void {
    const of = a.of === 'brief' ? undefined : a.of;
    const kind = a.status === 'APPROVED' ? 'approval' : 'rejection';
    const text = kind === 'rejection' ? a.reason?.trim() || 'no reason given' : '';
    const last = this.verdicts.get(verdictKey(a.by, of));
    // A repeated verdict adds nothing new; counting it keeps the prompt prefix stable for caching.
    if (last && last.kind === kind && last.text === text) {
      last.repeats += 1;
      return;
    }
    const turn = this.state.turn;
    this.pin(of ? { kind, turn, by: a.by, of, text, repeats: 1 } : { kind, turn, by: a.by, text, repeats: 1 });
  }

  private pin(p: Pinned): void {
    const settled = this.settledPins;
    this.state.pinned.push(p);
    this.state.settled = settled;
    this.index(p);
    this.pins += 1;
    if (this.options.config.new_pins === 'in_system' || this.state.pinned.length - settled > WAITING_PINS_MAX) this.settlePins();
  }

  private index(p: Pinned): void {
    if (p.kind === 'decision') this.decisions.add(p.text);
    else this.verdicts.set(verdictKey(p.by, p.of), p);
  }

  /** Pinned decisions, recent raw turns and the summaries that best match the query (lexical scoring). */
  getRelevantContext(query: string, maxItems = 3): RelevantContext {
    const summaries = this.state.summaries;
    const ranked = rankByQuery(query, summaries.map(summaryText));
    const matched = ranked.some((r) => r.score > 0) ? ranked.filter((r) => r.score > 0) : ranked;
    return {
      key_decisions: this.state.pinned.map((p) => pinnedLine(p, this.nameOf, true).slice(2)),
      recent_context: this.state.raw.slice(-Math.max(1, this.config.keep_recent)).map((t) => t.text),
      compressed_history: matched.slice(0, maxItems).map((r) => ({ ...summaries[r.index]!, score: r.score })),
    };
  }

  /** What `!memory` shows. */
  snapshot(): MemorySnapshot {
    return {
      pinned: this.state.pinned.map((p) => pinnedLine(p, this.nameOf, true).slice(2)),
      ...(this.state.moved ? { moved: { ...this.state.moved } } : {}),
      summaries: structuredClone(this.state.summaries),
      raw_turns: this.state.raw.length,
      compressing: this.compressor.busy,
      failures: this.state.failures,
    };
  }

  /** Resolves when no compression is running or queued (for tests, benches and a clean exit). */
  idle(): Promise<void> {
    return this.compressor.idle();
  }

  private addTurn(at: number, author: string, text: string, turnId: string | undefined): void {
    // Written out, not spread from a partial turn: V8's spread with keys added after it cost ~5 µs a turn.
    // The keys keep the order the stored state has always had (turn, author, type, text, turnId, id, tokens).
    const id = this.state.nextId++;
    const turn: RawTurn = turnId === undefined ? { turn: at, author, type: 'general', text, id, tokens: 0 } : { turn: at, author, type: 'general', text, turnId, id, tokens: 0 };
    // Counted when a count of it is read: most prompts fit their budget by bytes alone, and a compression counts its batch.
    this.uncounted.add(turn);
    // The first answer of a fresh process is not held up by loading the tokenizer: it loads in the background.
    if (!tokenizerReady()) void loadTokenizer().catch(() => undefined);
    this.state.raw.push(turn);
    this.state.turnsSeen += 1;
    this.state.sinceCompression += 1;
    this.compressor.schedule();
  }
}

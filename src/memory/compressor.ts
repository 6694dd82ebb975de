import type { MemoryConfig } from '../config/team-schema.js';
import { event, type EngineEvent } from '../engine/event-map.js';
import type { MemoryState, RawTurn, Summary, SummaryContent } from './memory-state.js';
import { summaryText } from './render.js';
import type { Summariser, SummaryJob } from './summariser.js';
import { localSummary, mergeLocally, rawCap } from './local-summary.js';
import { countTokens } from './tokens.js';

/**
 * Runs compression off the critical path: one background job at a time summarises the oldest raw
 * turns, then merges the oldest summaries past the cap. A failure keeps everything and retries
 * after `compress_every` more turns, up to a bound: past `rawCap` raw turns the oldest are folded
 * locally (their first sentences), so a summariser that never works cannot grow memory without end.
 * Nothing here is ever awaited by a persona turn.
 */
export class Compressor {
  private job: Promise<void> | null = null;
  private checkQueued = false;

  constructor(
    private readonly state: MemoryState,
    private readonly config: MemoryConfig,
    private readonly summariser: Summariser | null,
    private readonly publish: (e: EngineEvent) => void,
    /** Told when a summary was made (the prompt's prefix changes then: pins waiting may join it). */
    private readonly onSummary: () => void = () => {},
    /** Counts raw turns still waiting for the tokenizer (their counts are read here). */
    private readonly countRaw: () => void = () => {},
  ) {}

  /** True while a summary or merge call is out. */
  get busy(): boolean {
    return this.job !== null;
  }

  /** Checks whether compression is due, after the current step's events (so the directive has typed the turn). */
  schedule(): void {
    if (this.checkQueued) return;
    const s = this.state;
    // Not due, as the check would find (a running job checks again when it ends): no task queued on most turns.
    if (!this.summariser || this.job || s.sinceCompression < this.config.compress_every || s.turnsSeen < s.retryAt) return;
    this.checkQueued = true;
    queueMicrotask(() => {
      this.checkQueued = false;
      this.maybeCompress();
    });
  }

  /** Resolves when no job is running or queued. */
  async idle(): Promise<void> {
    while (this.job || this.checkQueued) await (this.job ?? Promise.resolve());
  }

  private maybeCompress(): void {
    const { config, summariser } = this;
    const s = this.state;
    if (!summariser || this.job || s.sinceCompression < config.compress_every || s.turnsSeen < s.retryAt) return;
    this.countRaw();
    const take = s.raw.length - config.keep_recent;
    if (take <= 0) return;
    const batch = s.raw.slice(0, take);
    s.sinceCompression = 0;
    this.job = this.compress(summariser, batch).finally(() => {
      this.job = null;
      // Turns that arrived while this job ran may already be due.
      this.maybeCompress();
    });
  }

  private async compress(summariser: Summariser, batch: RawTurn[]): Promise<void> {
    const s = this.state;
    const content = await this.attempt(summariser, { kind: 'segment', turns: batch });
    if (!content) {
      s.failures += 1;
      s.retryAt = s.turnsSeen + this.config.compress_every;
      s.sinceCompression = Math.max(s.sinceCompression, this.config.compress_every);
      this.foldLocally();
      return;
    }
    // The batch leads the raw turns (only this job takes turns from the front): cut off in place.
    if (batch.every((t, i) => s.raw[i] === t)) s.raw.splice(0, batch.length);
    else {
      const ids = new Set(batch.map((t) => t.id));
      s.raw = s.raw.filter((t) => !ids.has(t.id));
    }
    const summary = this.makeSummary(content, batch[0]!.turn, batch[batch.length - 1]!.turn, batch.length, 1);
    s.summaries.push(summary);
    this.onSummary();
    this.publish(event('memory_compressed', { turns_in: batch.length, tokens_before: batch.reduce((n, t) => n + t.tokens, 0), tokens_after: summary.tokens, summaries: s.summaries.length }));
    await this.mergeOverflow(summariser);
  }

  /**
   * Past the cap, the oldest summaries are merged into one, down to half the cap: merging rewrites the
   * head of every prompt's summaries, so it happens once in several summaries rather than at each one
   * (and the oldest history is re-summarised less often). On failure they all stay and merging retries later.
   */
  private async mergeOverflow(summariser: Summariser): Promise<void> {
    const s = this.state;
    while (s.summaries.length > this.config.max_summaries) {
      const group = s.summaries.slice(0, Math.max(2, s.summaries.length - Math.floor(this.config.max_summaries / 2)));
      const content = await this.attempt(summariser, { kind: 'merge', summaries: group });
      if (!content) {
        // Merging retries later, but the summaries stay bounded meanwhile (twice the cap).
        if (s.summaries.length > 2 * this.config.max_summaries) this.mergeOldestLocally();
        return;
      }
      const count = group.reduce((n, g) => n + g.count, 0);
      const merged = this.makeSummary(
        content,
        group[0]!.first,
        group[group.length - 1]!.last,
        count,
        group.reduce((n, g) => n + g.parts, 0),
      );
      s.summaries = [merged, ...s.summaries.slice(group.length)];
      this.publish(event('memory_compressed', { turns_in: count, tokens_before: group.reduce((n, g) => n + g.tokens, 0), tokens_after: merged.tokens, summaries: s.summaries.length }));
    }
  }

  /** After a failure: raw turns past the cap become one summary made here, and summaries past theirs are merged here. */
  private foldLocally(): void {
    this.countRaw();
    const s = this.state;
    const over = s.raw.length - rawCap(this.config);
    if (over <= 0) return;
    const batch = s.raw.slice(0, over);
    s.raw = s.raw.slice(over);
    const summary = this.makeSummary(localSummary(batch), batch[0]!.turn, batch[batch.length - 1]!.turn, batch.length, 1);
    s.summaries.push(summary);
    if (s.summaries.length > this.config.max_summaries) this.mergeOldestLocally();
    this.onSummary();
    this.publish(event('memory_compressed', { turns_in: batch.length, tokens_before: batch.reduce((n, t) => n + t.tokens, 0), tokens_after: summary.tokens, summaries: s.summaries.length }));
  }

  private mergeOldestLocally(): void {
    const s = this.state;
    const group = s.summaries.slice(0, s.summaries.length - this.config.max_summaries + 1);
    const merged = this.makeSummary(
      mergeLocally(group),
      group[0]!.first,
      group[group.length - 1]!.last,
      group.reduce((n, g) => n + g.count, 0),
      group.reduce((n, g) => n + g.parts, 0),
    );
    s.summaries = [merged, ...s.summaries.slice(group.length)];
  }

  private async attempt(summariser: Summariser, job: SummaryJob): Promise<SummaryContent | null> {
    try {
      return await summariser.summarise(job);
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      const what = job.kind === 'segment' ? `${job.turns.length} raw turns kept` : `${job.summaries.length} summaries kept`;
      this.publish(event('error', { message: `summary failed (${reason}); ${what}, retrying later`, where: 'memory' }));
      return null;
    }
  }

  private makeSummary(content: SummaryContent, first: number, last: number, count: number, parts: number): Summary {
    const summary: Summary = { decisions: content.decisions, discussions: content.discussions, pending: content.pending, id: this.state.nextId++, first, last, count, parts, tokens: 0 };
    summary.tokens = countTokens(summaryText(summary));
    return summary;
  }
}

import { z } from 'zod';
import type { ChatMessage, ChatModel, RetryInfo, Usage } from '../llm/chat-model.js';
import { AbortedError, TroupeError } from '../llm/errors.js';
import { extractJsonObject } from '../directive/parse.js';
import { SummaryContentSchema, type RawTurn, type Summary, type SummaryContent } from './memory-state.js';
import { turnLine, type NameOf } from './render.js';
import { lazySchema } from '../config/lazy-schema.js';

/** What to summarise: a segment of raw turns, or consecutive summaries to merge into one. */
export type SummaryJob = { kind: 'segment'; turns: RawTurn[] } | { kind: 'merge'; summaries: Summary[] };

/** Turns a job into a structured summary; rejects when it cannot. */
export interface Summariser {
  summarise(job: SummaryJob): Promise<SummaryContent>;
}

/** The summariser could not produce a valid summary. */
export class SummaryError extends TroupeError {}

// Bounds keep a runaway summary from bloating every later prompt; a violation gets the repair round.
const ITEM_MAX_CHARS = 600;
const ITEMS_MAX = 20;
const Bounded = lazySchema(() =>
  SummaryContentSchema.extend({
    decisions: z.array(z.string().max(ITEM_MAX_CHARS)).max(ITEMS_MAX).default([]),
    discussions: z.array(z.string().max(ITEM_MAX_CHARS)).max(ITEMS_MAX).default([]),
    pending: z.array(z.string().max(ITEM_MAX_CHARS)).max(ITEMS_MAX).default([]),
  }),
);

/** One list of a summary as the schema accepts it (absent: empty), or null when the schema must say why not. */
function boundedList(v: unknown): string[] | null {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > ITEMS_MAX) return null;
  for (const x of v) if (typeof x !== 'string' || x.length > ITEM_MAX_CHARS) return null;
  return v as string[];
}

/**
 * The summary a well-formed reply holds, read without the schema (its lists checked against the same bounds:
 * the schema costs more than the rest of a summary's handling); null for anything else, which the schema reads.
 */
function wellFormed(value: unknown): SummaryContent | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const { decisions: d, discussions: ds, pending: p } = value as Record<string, unknown>;
  const decisions = boundedList(d);
  const discussions = decisions && boundedList(ds);
  const pending = discussions && boundedList(p);
  return pending ? { decisions: decisions!, discussions: discussions!, pending } : null;
}

const SYSTEM = [
  'You compress part of a team conversation so it can leave later prompts.',
  'Keep (1) every decision made, in its own wording; (2) the main discussion points, at most 3; (3) unresolved issues or open questions.',
  'Reply with only a JSON object: {"decisions": ["..."], "discussions": ["..."], "pending": ["..."]} (arrays of short strings).',
].join('\n');

/** The messages of a summary call. */
export function summaryMessages(job: SummaryJob, nameOf: NameOf): ChatMessage[] {
  if (job.kind === 'segment') {
    const first = job.turns[0]?.turn ?? 0;
    const last = job.turns[job.turns.length - 1]?.turn ?? first;
    const body = job.turns.map((t) => turnLine(t, nameOf)).join('\n');
    return [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `Conversation segment (turns ${first}-${last}); turns typed decision, approval or rejection carry decisions:\n${body}` },
    ];
  }
  const blocks = job.summaries.map((s) =>
    [`Summary of turns ${s.first}-${s.last}:`, ...s.decisions.map((d) => `decision: ${d}`), ...s.discussions.map((d) => `discussion: ${d}`), ...s.pending.map((p) => `pending: ${p}`)].join('\n'),
  );
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `Merge these consecutive summaries into one, oldest first; keep the decisions that still stand and drop repetition:\n\n${blocks.join('\n\n')}` },
  ];
}

/** The text as one JSON object, when it is nothing else (a JSON-mode reply): no scan for the last object in prose. */
function wholeObject(text: string): Record<string, unknown> | undefined {
  const t = text.trim();
  if (t[0] !== '{' || t[t.length - 1] !== '}') return undefined;
  try {
    const value: unknown = JSON.parse(t);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The items trimmed, empty ones left out (the same array when every item is already so). */
function trimmedItems(xs: string[]): string[] {
  let i = 0;
  while (i < xs.length && xs[i]!.length > 0 && xs[i]!.trim() === xs[i]) i++;
  if (i === xs.length) return xs;
  return xs.map((x) => x.trim()).filter((x) => x !== '');
}

/** Reads a summary from model text: a JSON object validated by zod. */
export function parseSummary(text: string): { ok: true; summary: SummaryContent } | { ok: false; error: string } {
  const value = wholeObject(text) ?? extractJsonObject(text);
  if (value === undefined) return { ok: false, error: 'no JSON object in the reply' };
  let s = wellFormed(value);
  if (s === null) {
    const parsed = Bounded.safeParse(value);
    if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ') };
    s = parsed.data;
  }
  return { ok: true, summary: { decisions: trimmedItems(s.decisions), discussions: trimmedItems(s.discussions), pending: trimmedItems(s.pending) } };
}

// One timer per call, cleared when the answer comes (no timeout signal or abort listener per call); a model that
// ignores the abort is not waited for either.
function withinTime<T>(promise: Promise<T>, controller: AbortController, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      controller.abort();
      reject(new AbortedError('summary call timed out or was aborted'));
    }, ms);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Options of the model-backed summariser. */
export interface ModelSummariserOptions {
  model: ChatModel;
  /** Model id of the `fast` tier. */
  modelId: string;
  nameOf: NameOf;
  /** A call that takes longer is abandoned (the raw turns stay and compression retries later). */
  timeoutMs?: number;
  onUsage?: (usage: Usage, model: string) => void;
  /** Told before each retry of a summary call (the runtime can show it like a persona call's retries). */
  onRetry?: (info: RetryInfo) => void;
}

/** Summarises with a chat model (`meta.purpose = 'summary'`), one repair round on invalid output. */
export class ModelSummariser implements Summariser {
  // The abort signal of calls made one after another (a memory's compressor runs one at a time): an AbortController
  // costs ~4 µs to make, more than the rest of a summary's handling here. Replaced once a call timed out (it aborted
  // it), and a call made while another is out gets its own, so no call is ever aborted by another's timeout.
  private controller: AbortController | null = null;
  private inFlight = 0;

  constructor(private readonly options: ModelSummariserOptions) {}

  async summarise(job: SummaryJob): Promise<SummaryContent> {
    const messages = summaryMessages(job, this.options.nameOf);
    const first = await this.call(messages);
    const result = parseSummary(first);
    if (result.ok) return result.summary;
    const repair: ChatMessage[] = [
      ...messages,
      { role: 'assistant', content: first },
      { role: 'user', content: `That summary was not valid (${result.error}). Reply with only the JSON object {"decisions": [...], "discussions": [...], "pending": [...]}.` },
    ];
    const second = parseSummary(await this.call(repair));
    if (second.ok) return second.summary;
    throw new SummaryError(`summary invalid after a repair round: ${second.error}`);
  }

  private async call(messages: ChatMessage[]): Promise<string> {
    const shared = this.inFlight === 0;
    if (shared) this.controller ??= new AbortController();
    const controller = shared && this.controller ? this.controller : new AbortController();
    this.inFlight += 1;
    try {
      const onRetry = this.options.onRetry;
      // Two literals, not a conditional spread into one: V8 builds a spread object on its slow path.
      const request = this.options.model.generate(
        onRetry
          ? { model: this.options.modelId, messages, jsonMode: true, signal: controller.signal, meta: { purpose: 'summary' }, onRetry }
          : { model: this.options.modelId, messages, jsonMode: true, signal: controller.signal, meta: { purpose: 'summary' } },
      );
      const response = await withinTime(request, controller, this.options.timeoutMs ?? 120_000);
      if (response.usage) this.options.onUsage?.(response.usage, response.model);
      return response.text;
    } finally {
      this.inFlight -= 1;
      if (shared && controller.signal.aborted) this.controller = null;
    }
  }
}

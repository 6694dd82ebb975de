import type { TroupeEvent } from '../../src/engine/event-map.js';
import { transcriptOf } from '../../src/memory/transcript.js';
import { completion, type FakeReply, type RecordedRequest } from './fake-openai-server.js';

/** One scripted persona turn: where it hands over (or its transition), a delay for its first request, or a failure. */
export interface TaggedTurn {
  next?: string;
  transition?: 'HANDOFF_TO_AGENT' | 'RESPOND_TO_USER' | 'COMPLETE';
  /** Wait this long before answering the first request for this turn (a retry of it answers at once). */
  delayFirstMs?: number;
  /** Answer with an HTTP 400 (the model fails). */
  fail?: boolean;
  /** Stream the answer (when streaming is asked for) with this many ms between chunks. */
  chunkDelayMs?: number;
  /** Answer only once this settles: a test decides when (e.g. once its reader is connected), no timer races. */
  gate?: Promise<unknown>;
}

const TAG = /\[\[tag ([\w-]+)\]\]/;
const TURN = /\[\[turn (\d+)\]\]/g;

/**
 * A conversation for a fake OpenAI-compatible server that any number of sessions and processes can share: a
 * request belongs to the session whose brief (or line) carries `[[tag X]]`, and its turn is one more than the
 * turn markers its history holds. Answers depend only on the request, so a repeated call gets the same answer,
 * and `counts` tells how often each turn was asked for.
 */
export class TaggedScript {
  /** Requests per `tag:turn`. */
  readonly counts = new Map<string, number>();

  constructor(private readonly plans: Record<string, TaggedTurn[]>) {}

  /** The fake server's handler. */
  readonly reply = (req: RecordedRequest): FakeReply | Promise<FakeReply> => {
    const text = JSON.stringify((req.body as { messages?: unknown } | undefined)?.messages ?? []);
    const tag = TAG.exec(text)?.[1] ?? 'none';
    const turn = 1 + Math.max(0, ...[...text.matchAll(TURN)].map((m) => Number(m[1])));
    const key = `${tag}:${turn}`;
    const seen = this.counts.get(key) ?? 0;
    this.counts.set(key, seen + 1);
    const step = this.plans[tag]?.[turn - 1];
    if (!step) return { status: 500, body: { error: { message: `no scripted turn ${key}` } } };
    if (step.fail) return { status: 400, body: { error: { message: `scripted failure at ${key}` } } };
    const directive = step.next ? { transition: step.transition ?? 'HANDOFF_TO_AGENT', next_agent: step.next } : { transition: step.transition ?? 'RESPOND_TO_USER' };
    const reply: FakeReply = {
      body: completion(`[[tag ${tag}]] [[turn ${turn}]] My part of the plan, step ${turn}.`, directive),
      ...(seen === 0 && step.delayFirstMs ? { delayMs: step.delayFirstMs } : {}),
      ...(step.chunkDelayMs ? { chunkDelayMs: step.chunkDelayMs } : {}),
    };
    return step.gate ? step.gate.then(() => reply) : reply;
  };

  /** How often turn `n` of `tag` was asked for. */
  count(tag: string, turn: number): number {
    return this.counts.get(`${tag}:${turn}`) ?? 0;
  }
}

/** A session's transcript as compared across runs: who said what, with which transition (no times or ids). */
export function comparableTranscript(events: readonly TroupeEvent[]): { kind: string; persona?: string; text: string; transition?: string; status?: string }[] {
  return transcriptOf(events).map((e) => ({
    kind: e.kind,
    ...(e.persona !== undefined ? { persona: e.persona } : {}),
    text: e.text,
    ...(e.directive ? { transition: e.directive.transition } : {}),
    ...(e.status !== undefined ? { status: e.status } : {}),
  }));
}

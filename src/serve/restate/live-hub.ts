import { randomBytes, timingSafeEqual } from 'node:crypto';
import { EnvelopeSchema, type TroupeEvent } from '../../engine/event-map.js';
import { EVENT_PAYLOADS } from '../../kinds/schemas.js';
import { isLiveOnly } from '../../kernel/session-kernel.js';
import type { LiveTarget } from './records.js';

/** Most deltas one push may carry (a worker batches a few milliseconds of them). */
const MAX_PUSH = 1_000;

// A reader's stream formats each event it is handed (its time, its persona): one of another shape (a push's `at: {}`)
// threw there and ended the stream. Pushed events are checked against their kind's schema, as stored ones are read.
function wellFormed(e: TroupeEvent): boolean {
  const payload = EVENT_PAYLOADS[e.type as keyof typeof EVENT_PAYLOADS];
  return payload !== undefined && EnvelopeSchema.safeParse(e).success && payload.safeParse(e).success;
}

/**
 * The serve side of live events on Restate: workers push a session's live-only events (`agent_delta`, the
 * `prediction` of who speaks next) to `POST /live` (with this process's token) while a turn runs, and every
 * SSE reader of that session gets them at once.
 * Best-effort, as the deltas are: the durable events still come from the session's journal.
 */
export class LiveHub {
  /** The secret workers send back (random per process; given to them with each session's input). */
  readonly token = randomBytes(24).toString('hex');
  private readonly readers = new Map<string, Set<(e: TroupeEvent) => void>>();

  /** `url`: where workers reach this process's `/live` (null: no live deltas, e.g. before the server listens). */
  constructor(public url: string | null = null) {}

  /** What a session's input carries so its worker pushes deltas here. */
  target(): LiveTarget | undefined {
    return this.url ? { url: this.url, token: this.token } : undefined;
  }

  /** Whether a push carries this process's token. */
  allows(authorization: string | undefined): boolean {
    const given = Buffer.from(authorization?.replace(/^Bearer /, '') ?? '');
    const mine = Buffer.from(this.token);
    return given.length === mine.length && timingSafeEqual(given, mine);
  }

  /** Listens to one session's deltas; returns the unsubscribe function. */
  subscribe(session: string, reader: (e: TroupeEvent) => void): () => void {
    let set = this.readers.get(session);
    if (!set) {
      set = new Set();
      this.readers.set(session, set);
    }
    set.add(reader);
    return () => {
      set.delete(reader);
      if (set.size === 0 && this.readers.get(session) === set) this.readers.delete(session);
    };
  }

  /** Hands pushed live events to their sessions' readers; anything else (a stored kind of event) is ignored. */
  deliver(events: unknown): number {
    if (!Array.isArray(events)) return 0;
    let delivered = 0;
    for (const e of events.slice(0, MAX_PUSH) as TroupeEvent[]) {
      if (typeof e?.type !== 'string' || !isLiveOnly(e.type) || !wellFormed(e)) continue;
      for (const reader of this.readers.get(e.session_id) ?? []) reader(e);
      delivered += 1;
    }
    return delivered;
  }
}

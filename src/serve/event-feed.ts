import type { TroupeEvent } from '../engine/event-map.js';
import { processRedactor, type Redactor } from '../llm/redact.js';
import { DISPLAY_START, type DisplayItem, displayNames, displayStep, plainNames, SILENT_EVENTS, type DisplayNames, type DisplayState } from '../report/display-items.js';
import type { TroupeSession } from '../session/troupe-session.js';
import type { SseClient } from './sse-client.js';
import { deltasFrame, joinedBytes, sseFrame, sseFrames, type SseFrame } from './sse-frame.js';
import { isLiveOnly } from '../kernel/session-kernel.js';

/** How many of a session's newest stored events its feed keeps, so a reader joining (or coming back) within them reads nothing from the store. */
export const FEED_RECENT = 32;

/**
 * Streamed words (and predictions) are sent at most this often, in one write per reader (a burst, or the words of these
 * milliseconds, joined once for all readers); a stored event sends the words before it at once. With many
 * readers the batches are longer, so a session's streamed words cost at most about 4,000 socket writes a
 * second however many read them (a quarter of a millisecond per reader, at most 250 ms: a thousand readers
 * see words four times a second): every batch is a socket write per reader, and each costs the server tens
 * of microseconds (the kernel's loopback or network work is done in the writer's call).
 */
export const DELTA_BATCH_MS = 20;
/** How long a batch of streamed words waits before it is sent to `readers` readers. */
export const deltaBatchMs = (readers: number): number => Math.min(250, Math.max(DELTA_BATCH_MS, Math.floor(readers / 4)));

/** How long frames built for readers resuming behind the kept ones are kept for the next such reader. */
const REPLAY_KEPT_MS = 5_000;

/** Frames of the events the session holds, built once for every reader that resumes among them. */
interface Replayed {
  /** The seq of the first event they start from (the session's window moves on: then they are built afresh). */
  first: number;
  last: number;
  state: DisplayState;
  frames: SseFrame[];
  /** The frames after one resume point joined into one frame, as the last reader resuming there got them. */
  joined: { after: number; last: number; frame: SseFrame } | null;
}

interface Kept {
  e: TroupeEvent;
  /** The display state before the event (its frame is worded from it). */
  before: DisplayState;
  frame: SseFrame | null;
  /** Its display step (items and the state after), when the fold that kept it made it already (until it is framed). */
  stepped?: { state: DisplayState; items: DisplayItem[] } | undefined;
}

/**
 * A session's events as SSE frames, for all of its readers at once: each event is worded (its display items,
 * folded over the session's events), redacted and serialised once, when the first reader needs it, and the
 * same bytes go to every reader. The newest stored events are kept, so most readers start without reading the
 * store. A feed follows the session while it runs here, and again each time it is opened again: its readers
 * stay connected in between (a session that ends ends their streams).
 */
export class EventFeed {
  private readonly readers = new Set<SseClient>();
  private deltas: TroupeEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private replayed: Replayed | null = null;
  private replayTimer: NodeJS.Timeout | null = null;
  private session: TroupeSession | null = null;
  private names: DisplayNames = plainNames('');
  private state: DisplayState = DISPLAY_START;
  private kept: Kept[] = [];
  /** The feed holds every stored event after this seq (none while it follows no session). */
  private from = Number.POSITIVE_INFINITY;
  private unsubscribe: (() => void) | null = null;
  /** The kept frames last joined for readers joining after `after` (see attach). */
  private joinedKept: { after: number; first: number; last: number; frame: SseFrame } | null = null;

  /** `gone` is called once the feed has no reader and follows no session (the host forgets it). */
  constructor(
    private readonly gone: () => void = () => undefined,
    private readonly redactor: Redactor = processRedactor(),
  ) {}

  /** Whether the feed follows this session object now. */
  follows(session: TroupeSession): boolean {
    return this.session === session;
  }

  /**
   * Follows `session` from now on. A session reopened from the store has published before: its fold starts
   * from the events it holds in memory (a display state depends only on the last directive per state and
   * whether the brief is next, which a window of hundreds of events always holds). Readers that waited get
   * those events too (each skips what it has, by seq). They are kept (until the session publishes again: then
   * the newest FEED_RECENT), framed when a reader first needs them: the reader whose request made the feed
   * follow (it connects after creating its session, or its session ran here without readers) reads nothing
   * from the store and has nothing folded twice.
   */
  follow(session: TroupeSession): void {
    this.unfollow(false);
    this.session = session;
    this.names = displayNames(session.def);
    this.kept = [];
    const recent = session.recent();
    let state = DISPLAY_START;
    for (const e of recent) {
      // A silent event (streamed words above all) has no items and leaves the fold as it was: nothing to step.
      const stepped = SILENT_EVENTS.has(e.type) ? undefined : displayStep(state, e, this.names);
      if (!isLiveOnly(e.type)) {
        const k: Kept = { e, before: state, frame: null, stepped };
        if (this.readers.size > 0) {
          k.frame = this.frameOf(k);
          this.pushAll(k.frame);
        }
        this.kept.push(k);
      }
      if (stepped) state = stepped.state;
    }
    this.state = state;
    // The feed holds every stored event after the one before the first kept.
    this.from = this.kept.length > 0 ? this.kept[0]!.e.seq - 1 : (recent.at(-1)?.seq ?? 0);
    this.unsubscribe = session.subscribe((e) => this.publish(e));
  }

  /** Stops following the session (it was let go of); readers stay until they leave or it is followed again. */
  unfollow(forget = true): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.sendDeltas();
    this.session = null;
    this.from = Number.POSITIVE_INFINITY;
    this.kept = [];
    if (forget && this.readers.size === 0) this.gone();
  }

  /** Ends every reader's stream (the server stops). */
  end(): void {
    this.sendDeltas();
    for (const reader of [...this.readers]) reader.close();
  }

  /** Readers following the session now. */
  get size(): number {
    return this.readers.size;
  }

  /** True when the feed holds every stored event after `after` (a reader resuming there needs nothing from the store). */
  covers(after: number): boolean {
    return after >= this.from;
  }

  /**
   * Adds a reader: the kept frames after `after` are queued for it at once (when `covers(after)`), joined into
   * one frame shared by every reader that joins at the same point, then every new event. Returns the function
   * that removes it.
   */
  attach(client: SseClient, after: number): () => void {
    if (this.covers(after)) {
      const kept = this.kept.filter((k) => k.e.seq > after);
      // Those not framed yet (the session ran with nobody reading) are framed together, into one buffer.
      const unframed = kept.filter((k) => !k.frame);
      if (unframed.length > 1) {
        const made = sseFrames(unframed, this.names, this.redactor);
        for (const [i, k] of unframed.entries()) {
          k.frame = made[i]!;
          k.stepped = undefined;
        }
      }
      const frames = kept.map((k) => this.frameOf(k));
      for (const frame of frames.length > 1 ? [this.keptJoined(after, frames)] : frames) client.push(frame);
    }
    this.readers.add(client);
    return () => {
      this.readers.delete(client);
      if (this.readers.size > 0) return;
      if (!this.session) this.gone();
      else this.dropFrames();
    };
  }

  /** How many serialised frames the feed holds now (each about its event's JSON): none while nobody reads. */
  get framesHeld(): number {
    let n = 0;
    for (const k of this.kept) if (k.frame) n += 1;
    return n;
  }

  /**
   * Lets go of the kept frames once nobody reads (their events and display states stay): a server's sessions
   * mostly wait for their users with no reader, and a thousand of them held 32 frames each. A reader joining
   * later has them made again from the same event and state, byte for byte.
   */
  private dropFrames(): void {
    for (const k of this.kept) k.frame = null;
    this.joinedKept = null;
  }

  /** The kept frames after `after` as one frame, joined once for all readers joining there until the feed moves on. */
  private keptJoined(after: number, frames: SseFrame[]): SseFrame {
    const last = frames.at(-1)!.seq;
    const cached = this.joinedKept;
    if (cached && cached.after === after && cached.last === last && cached.first === frames[0]!.seq) return cached.frame;
    const frame: SseFrame = { seq: last, live: false, bytes: joinedBytes(frames) };
    if (frames.some((f) => f.ends)) frame.ends = true;
    this.joinedKept = { after, first: frames[0]!.seq, last, frame };
    return frame;
  }

  /**
   * Frames for a reader resuming at `after`, before the kept ones: from the events the session holds in
   * memory, folded from the first of them; null when they do not reach back that far. The frames are built
   * once and shared with every reader resuming among them in the next few seconds (a thousand readers
   * joining a long session at once cost one replay).
   */
  replay(after: number): SseFrame[] | null {
    const events = this.session?.recent() ?? [];
    if (events.length === 0 || events[0]!.seq > after + 1) return null;
    let r = this.replayed;
    if (!r || r.first !== events[0]!.seq) r = { first: events[0]!.seq, last: events[0]!.seq - 1, state: DISPLAY_START, frames: [], joined: null };
    for (const e of events) {
      if (e.seq <= r.last) continue;
      const made = sseFrame(e, r.state, this.names, this.redactor);
      r.state = made.state;
      r.frames.push(made.frame);
      r.last = e.seq;
    }
    this.replayed = r;
    if (this.replayTimer) clearTimeout(this.replayTimer);
    this.replayTimer = setTimeout(() => (this.replayed = null), REPLAY_KEPT_MS);
    this.replayTimer.unref();
    return r.frames.filter((f) => f.seq > after);
  }

  /**
   * `replay(after)` as one frame of all their bytes, joined once and shared by every reader resuming at
   * `after` until the session publishes more: a thousand readers joining a long session at once then hold
   * one copy of it, not one each.
   */
  replayJoined(after: number): SseFrame[] | null {
    const frames = this.replay(after);
    const r = this.replayed;
    if (!frames || frames.length < 2 || !r) return frames;
    if (r.joined?.after !== after || r.joined.last !== r.last) {
      const frame: SseFrame = { seq: frames.at(-1)!.seq, live: false, bytes: Buffer.concat(frames.map((f) => f.bytes)) };
      if (frames.some((f) => f.ends)) frame.ends = true;
      r.joined = { after, last: r.last, frame };
    }
    return [r.joined.frame];
  }

  /** Sends the streamed words (and predictions) waiting for their batch, joined into one frame for every reader. */
  private sendDeltas(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const deltas = this.deltas;
    if (deltas.length === 0) return;
    this.deltas = [];
    const frame = deltasFrame(deltas, this.state, this.names, this.redactor);
    this.pushAll(frame);
  }

  private publish(e: TroupeEvent): void {
    const before = this.state;
    if (isLiveOnly(e.type) && SILENT_EVENTS.has(e.type)) {
      // A streamed word or a prediction is silent (no items; the fold stays) and live only: without readers there
      // is nothing to do; with readers it is framed with its batch. A prediction sent at once took the words
      // before it along: a write per reader more for each (an eighth of the writes of a thousand readers).
      if (this.readers.size === 0) return;
      this.deltas.push(e);
      this.timer ??= setTimeout(() => this.sendDeltas(), deltaBatchMs(this.readers.size));
      return;
    }
    this.sendDeltas();
    if (isLiveOnly(e.type)) {
      // Other live-only events go out at once and are never kept: they are not resume points.
      const made = sseFrame(e, before, this.names, this.redactor);
      this.state = made.state;
      this.pushAll(made.frame);
      return;
    }
    // Joined for readers that joined before this event: a reader joining from now on needs it too.
    this.joinedKept = null;
    // A stored event is kept; its frame is made now when someone reads, else when a reader needs it.
    const k: Kept = { e, before, frame: null };
    if (this.readers.size > 0) {
      const made = sseFrame(e, before, this.names, this.redactor);
      k.frame = made.frame;
      this.state = made.state;
      this.pushAll(made.frame);
    } else {
      // Folded once: the step is kept with the event, and its frame is worded from it when a reader needs it
      // (a silent event has none, and leaves the fold as it was).
      if (!SILENT_EVENTS.has(e.type)) {
        k.stepped = displayStep(before, e, this.names);
        this.state = k.stepped.state;
      }
    }
    this.kept.push(k);
    while (this.kept.length > FEED_RECENT) this.from = this.kept.shift()!.e.seq;
  }

  /** Pushes a frame to every reader (by forEach: the Set's iterator made an object per reader in publish, unoptimised). */
  private pushAll(frame: SseFrame): void {
    this.readers.forEach((reader) => {
      reader.push(frame);
    });
  }

  private frameOf(k: Kept): SseFrame {
    k.frame ??= sseFrame(k.e, k.before, this.names, this.redactor, k.stepped).frame;
    k.stepped = undefined;
    return k.frame;
  }
}

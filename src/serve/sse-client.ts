import { phaseDeadline, serverShare } from './loop-share.js';
import type { SseFrame } from './sse-frame.js';
import { WaitingReaders } from './sse-waiting.js';

/** How much a slow reader may fall behind before it is dropped (sessions never wait for a reader). */
export const MAX_QUEUED_EVENTS = 2_000;

/** Where one reader's bytes go: `write` answers false when the connection wants the writer to wait for `drain`. */
export interface SseSink {
  write(bytes: Uint8Array): boolean;
  /** Writes several buffers as one write without copying them into one (large replays); `write` of their join when absent. */
  writeMany?(list: readonly Uint8Array[]): boolean;
  /** Calls `listener` each time the connection can take more after `write` answered false. */
  onDrain(listener: () => void): void;
  /** Ends the stream. */
  end(): void;
}

const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');

// Frames pushed to readers are written once the task that pushed them has settled (its promise jobs
// included), so what a session publishes in one go leaves as one write per reader, not one per event; at
// most AFTER_TASK_MS of writes then, and the readers left are written in later turns of the event loop (slices
// of its check phase, a share of the loop: see LoopShare), so the server answers other requests in between
// (a thousand readers of one event are a thousand socket writes, and a health check stays fast). Written
// after the task, not in a later phase of the loop: a busy server (its timers phase running hundreds of
// turns) would leave readers only the slices. A reader that has just connected is written in a slice, never
// after its request's task: a thousand readers connecting in one poll phase each wrote their backlog in it.
// Frames of more bytes than this are written as they are (one gathered write), not copied into one buffer.
const JOIN_BYTES = 16 * 1024;
// A session's own readers are written within this after its task (a few writes of a few microseconds); a
// fan-out to a thousand readers is left to the slices after the first millisecond: 3 ms here, then a slice of
// 5 ms in the same turn of the loop, held a health check 8 ms and more.
const AFTER_TASK_MS = 1;

const due = new WaitingReaders<SseClient>();
// Readers that have just connected: their backlog is written in slices only.
const starting = new WaitingReaders<SseClient>();
let afterTask = false;
let sliced = false;
// Readers were left over by the writes after a task: the next ones join them in the slice (oldest first).
let overflow = false;

/** Writes the readers of `set`, oldest first, until `end` (performance.now()); true when it wrote them all. */
function writeUntil(set: WaitingReaders<SseClient>, end: number): boolean {
  for (let client = set.shift(); client; client = set.shift()) {
    client.flushNow();
    if (performance.now() > end) break;
  }
  return set.size === 0;
}

/** The writes after a task: AFTER_TASK_MS of them; the readers left wait for a slice. */
function writeAfterTask(): void {
  afterTask = false;
  if (!writeUntil(due, performance.now() + AFTER_TASK_MS)) {
    overflow = true;
    slice();
  }
}

/** Asks for a slice in the loop's check phase: the readers left over, then those starting. */
function slice(): void {
  if (sliced) return;
  sliced = true;
  setImmediate(() => {
    sliced = false;
    const end = phaseDeadline();
    if (writeUntil(due, end)) overflow = false;
    if (!overflow) writeUntil(starting, end);
    serverShare.ended();
    if (due.size > 0 || starting.size > 0) slice();
  });
}

/** Queues a reader's write: after the current task (unless readers left over wait for a slice), or in a slice when it is `starting`. */
function schedule(client: SseClient, isStarting = false): void {
  if (isStarting) {
    starting.add(client);
    return slice();
  }
  // A reader still starting is written by its slice, backlog and all.
  if (starting.has(client)) return;
  due.add(client);
  if (overflow || afterTask) return;
  afterTask = true;
  process.nextTick(writeAfterTask);
}
const DROPPED = Buffer.from(`event: dropped\ndata: ${JSON.stringify({ error: 'this reader fell too far behind and was dropped; reconnect with Last-Event-ID' })}\n\n`);

/**
 * One SSE reader: frames are pushed to it synchronously (never blocking the session) and written to its
 * connection once the pushing task has settled, all it has queued as one write, with no promise or task per
 * frame (see writeSlice); while its connection does not keep up
 * they queue and go out as one write when it drains. Frames at or before the seq it resumed after (or already sent) are skipped, so a reader can be
 * attached before its stored frames are read. A reader more than `limit` frames behind is dropped with a
 * `dropped` event.
 */
export class SseClient {
  private queue: SseFrame[] = [];
  /** The queue's other array (see flushNow). */
  private spare: SseFrame[] = [];
  private sink: SseSink | null = null;
  private blocked = false;
  private sent: number;
  private keepAlive: NodeJS.Timeout | null = null;
  private readonly ended: Promise<void>;
  private finish!: () => void;
  dropped = false;
  closed = false;
  /** The readers' write queue it waits in, and its place there (see WaitingReaders). */
  waitsIn: WaitingReaders<SseClient> | null = null;
  waitsAt = 0;

  constructor(
    after = 0,
    private readonly limit = MAX_QUEUED_EVENTS,
  ) {
    this.sent = after;
    this.ended = new Promise<void>((resolve) => (this.finish = resolve));
  }

  /** Resolves once the stream is over (the reader left, was dropped, or was ended). */
  get over(): Promise<void> {
    return this.ended;
  }

  /** Starts writing: the `stored` frames first, then those pushed since; a keep-alive comment every `keepAliveMs` of the stream. */
  start(sink: SseSink, stored: readonly SseFrame[], keepAliveMs: number): void {
    this.sink = sink;
    sink.onDrain(() => {
      this.blocked = false;
      schedule(this);
    });
    this.queue = [...stored, ...this.queue];
    // Its backlog goes out in a slice: the task that connected it (and the others of its poll phase) stays short.
    schedule(this, true);
    this.keepAlive = setInterval(() => !this.blocked && this.sink?.write(KEEP_ALIVE), keepAliveMs);
    this.keepAlive.unref();
  }

  /** Queues a frame, written at once when the connection keeps up; drops the reader when it is too far behind. */
  push(frame: SseFrame): void {
    if (this.closed || this.dropped) return;
    if (this.queue.length >= this.limit) return this.drop();
    this.queue.push(frame);
    if (this.sink && !this.blocked) schedule(this);
  }

  /** Ends the stream (the reader left, the server stops, or nothing more will come). */
  close(): void {
    if (this.closed) return;
    // What is queued still goes out (the stored frames of a session that is not running here); then the end.
    if (!this.dropped) this.flushNow();
    // Writing them wrote the session's end, which closed the stream already.
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    due.delete(this);
    starting.delete(this);
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.sink?.end();
    this.finish();
  }

  private drop(): void {
    this.dropped = true;
    this.queue = [];
    this.sink?.write(DROPPED);
    this.close();
  }

  /** Writes what is queued as one write (unless the connection is draining or gone). */
  flushNow(): void {
    if (this.closed || this.blocked) return;
    const queue = this.queue;
    if (queue.length === 0) return;
    // The frames to write are gathered at the head of the queue, and the queue's two arrays take turns: a
    // reader keeping up is written a batch of streamed words at a time, with no array made for it per write.
    let count = 0;
    let ends = false;
    for (let i = 0; i < queue.length; i++) {
      const f = queue[i]!;
      if (!f.live && f.seq <= this.sent) continue;
      if (!f.live) this.sent = f.seq;
      queue[count++] = f;
      // Nothing follows the end of the session on this stream.
      if (f.ends) {
        ends = true;
        break;
      }
    }
    this.queue = this.spare;
    this.spare = queue;
    if (count === 0 || !this.sink) return emptied(queue);
    const ok = this.write(queue, count);
    emptied(queue);
    if (!ok) this.blocked = true;
    // The connection buffers what it took; ending after it still delivers it.
    if (ends) this.close();
  }

  /** Writes the first `count` frames of `out` as one write. */
  private write(out: readonly SseFrame[], count: number): boolean {
    const sink = this.sink!;
    if (count === 1) return sink.write(out[0]!.bytes);
    // The frames' bytes are shared by every reader; a batch joined into one write is this reader's own copy,
    // so a large one (a replay to a reader joining late) is written as it is instead.
    let bytes = 0;
    for (let i = 0; i < count; i++) bytes += out[i]!.bytes.byteLength;
    if (sink.writeMany && bytes > JOIN_BYTES) return sink.writeMany(out.slice(0, count).map((f) => f.bytes));
    return sink.write(joined(out, count));
  }
}

/** Empties an array keeping its room (`length = 0` lets go of it: the next push would allocate it again). */
function emptied(list: unknown[]): void {
  while (list.length > 0) list.pop();
}

// The last batch joined: readers that keep up are queued the same frames, so a thousand of them share one copy.
let lastJoined: { frames: readonly SseFrame[]; bytes: Buffer } | null = null;

/** The bytes of the first `count` frames as one buffer, shared with the readers before that were queued the very same frames. */
function joined(frames: readonly SseFrame[], count: number): Buffer {
  const last = lastJoined;
  if (last && sameFrames(last.frames, frames, count)) return last.bytes;
  const batch = frames.slice(0, count);
  const bytes = Buffer.concat(batch.map((f) => f.bytes));
  lastJoined = { frames: batch, bytes };
  return bytes;
}

/** Whether `kept` are the first `count` frames of `frames`, the very same ones (a loop: a closure per reader was most of what a hit allocated). */
function sameFrames(kept: readonly SseFrame[], frames: readonly SseFrame[], count: number): boolean {
  if (kept.length !== count) return false;
  for (let i = 0; i < count; i++) if (kept[i] !== frames[i]) return false;
  return true;
}

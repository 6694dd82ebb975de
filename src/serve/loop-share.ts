import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** The shortest slice: what deferred work gets on an idle loop (a health check waits at most about this long for it). */
export const SLICE_MS = 5;
/** The longest slice, however busy the loop is with other work. */
export const MAX_SLICE_MS = 50;

/**
 * The share of the event loop that work done in slices (setImmediate) takes: each slice may run as long as the
 * loop was busy with other work since the last slice ended, between SLICE_MS and MAX_SLICE_MS. On a quiet loop
 * the slices are short, so other requests get a turn between them; on a loop busy with sessions the deferred
 * work keeps about half of it instead of starving (a fixed 5 ms a turn, on a loop whose turns take hundreds of
 * milliseconds, took seconds to connect a thousand readers).
 */
export class LoopShare {
  private mark: EventLoopUtilization = performance.eventLoopUtilization();

  /** How long the slice starting now may run, in milliseconds. */
  budget(): number {
    const busy = performance.eventLoopUtilization(this.mark).active;
    return Math.min(MAX_SLICE_MS, Math.max(SLICE_MS, busy));
  }

  /** Marks the end of a slice: the loop's work from here on is the next slice's measure. */
  ended(): void {
    this.mark = performance.eventLoopUtilization();
  }
}

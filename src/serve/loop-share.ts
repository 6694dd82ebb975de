import { performance } from 'node:perf_hooks';

/** The shortest slice: what deferred work gets on an idle loop (a health check waits at most about this long for it). */
export const SLICE_MS = 2;
/**
 * The longest slice, however busy the loop is with other work: a request that arrives during a slice waits for
 * it (the slices of one check phase share one deadline: phaseDeadline). Slices of up to 50 ms made /healthz p99
 * 30-60 ms with a thousand readers; 5 ms still left the server's own holds over 5 ms about twice as often as
 * 3 ms while a thousand readers connected or read, and connected them no faster.
 */
export const MAX_SLICE_MS = 3;

/** Where a LoopShare reads the loop's work: cumulative milliseconds the event loop was active. */
export interface LoopMeter {
  activeMs(): number;
}

/** This process's event loop. */
export const processLoopMeter: LoopMeter = {
  activeMs: () => performance.eventLoopUtilization().active,
};

/**
 * The share of the event loop that work done in slices (setImmediate) takes: each slice may run as long as the
 * loop worked on other things since the last slice ended, between SLICE_MS and MAX_SLICE_MS. On a quiet loop
 * the slices are short, so other requests get a turn between them; on a loop busy with sessions the deferred
 * work keeps its share instead of starving (a fixed 5 ms a turn, on a loop whose turns take hundreds of
 * milliseconds, took seconds to connect a thousand readers). The loop's active time counts the time the
 * process waited for a core on a loaded machine too: with slices of 50 ms that made slices of 20-30 ms on a
 * quiet loop, and the process's CPU time bounded it; between 2 and 3 ms it changes a slice by a millisecond
 * at most, and the two getrusage calls a slice cost more than that bound saved (2.6% of the server's profile
 * with 1,000 sessions, 0.4-4.6 ms a call on this loaded machine).
 */
export class LoopShare {
  private active: number;

  constructor(private readonly meter: LoopMeter = processLoopMeter) {
    this.active = meter.activeMs();
  }

  /** How long the slice starting now may run, in milliseconds. */
  budget(): number {
    return Math.min(MAX_SLICE_MS, Math.max(SLICE_MS, this.meter.activeMs() - this.active));
  }

  /** Marks the end of a slice: the loop's work from here on is the next slice's measure. */
  ended(): void {
    this.active = this.meter.activeMs();
  }
}

/** The shared LoopShare of the server's deferred work (readers' writes, stream admission): one measure of the loop for all of it. */
export const serverShare = new LoopShare();

let phaseEnd = 0;
let phaseOpen = false;
const closePhase = () => {
  phaseOpen = false;
};

/**
 * When the slices of this check phase must end (performance.now()): the first slice of a phase sets it from
 * `share`'s budget, and every later slice of the same phase gets what is left of it. The readers' writes and
 * the streams being admitted are sliced apart: with a deadline each, one check phase held a health check for
 * both (two slices of 5 ms, and more with a write that overran). Call it from a setImmediate callback.
 */
export function phaseDeadline(share: LoopShare = serverShare): number {
  if (!phaseOpen) {
    phaseOpen = true;
    phaseEnd = performance.now() + share.budget();
    // Queued now, it runs first in the next check phase: the slices this phase queues for it come after it.
    setImmediate(closePhase);
  }
  return phaseEnd;
}

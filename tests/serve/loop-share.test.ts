import { describe, expect, it } from 'vitest';
import { LoopShare, MAX_SLICE_MS, phaseDeadline, SLICE_MS, type LoopMeter } from '../../src/serve/loop-share.js';

/** A meter the test moves by hand: milliseconds of loop activity. */
function handMeter(): LoopMeter & { work(activeMs: number): void } {
  let active = 0;
  return {
    activeMs: () => active,
    work(a) {
      active += a;
    },
  };
}

describe('LoopShare', () => {
  it('gives a slice as long as the other work since the last slice, between the bounds', () => {
    const meter = handMeter();
    const share = new LoopShare(meter);
    meter.work(2.5);
    expect(share.budget()).toBe(2.5);
    share.ended();
    meter.work(0.5);
    expect(share.budget()).toBe(SLICE_MS);
    share.ended();
    meter.work(400);
    expect(share.budget()).toBe(MAX_SLICE_MS);
  });

  it('never gives a slice long enough to hold a health check past its 10 ms target, however busy the loop was', () => {
    const meter = handMeter();
    const share = new LoopShare(meter);
    meter.work(40);
    expect(share.budget()).toBe(MAX_SLICE_MS);
    // Two slices of one check phase (an admitted stream's and the readers' writes) stay within the target together.
    expect(2 * MAX_SLICE_MS).toBeLessThanOrEqual(10);
  });

  it('measures from the end of the last slice only', () => {
    const meter = handMeter();
    const share = new LoopShare(meter);
    meter.work(20);
    share.ended();
    meter.work(2.75);
    expect(share.budget()).toBe(2.75);
  });

  it('the slices of one check phase share one deadline; the next phase gets its own', async () => {
    const meter = handMeter();
    const share = new LoopShare(meter);
    meter.work(400);
    const phase = () =>
      new Promise<[number, number, number]>((resolve) =>
        setImmediate(() => {
          // The readers' writes and the streams being admitted, in the same check phase, and a slice either queues for the next.
          const writes = phaseDeadline(share);
          const later = new Promise<number>((r) => setImmediate(() => r(phaseDeadline(share))));
          const admission = phaseDeadline(share);
          void later.then((next) => resolve([writes, admission, next]));
        }),
      );
    const [writes, admission, next] = await phase();
    expect(admission).toBe(writes);
    expect(writes - performance.now()).toBeLessThanOrEqual(MAX_SLICE_MS);
    expect(next).toBeGreaterThan(writes);
  });
});

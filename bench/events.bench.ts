// Publish cost: building an event, stamping its envelope (session id, seq, time from the clock) and
// delivering it on the session's bus to one subscriber, next to a bare eventemitter3 emit, in one run.
import { EventEmitter } from 'eventemitter3';
import { performance } from 'node:perf_hooks';
import { event, type TroupeEvent } from '../src/engine/event-map.js';
import { TroupeBus } from '../src/kernel/bus.js';
import { interleaved, median, QUICK } from './stats.js';

const N = QUICK ? 100_000 : 500_000;
const RUNS = QUICK ? 5 : 11;

/** Nanoseconds per call of `fn` over N calls. */
function perCall(fn: (i: number) => void): number {
  const t0 = performance.now();
  for (let i = 0; i < N; i++) fn(i);
  return ((performance.now() - t0) * 1e6) / N;
}

export default async function events(): Promise<void> {
  let sink = 0;
  const emitter = new EventEmitter<{ transition: (e: { from: string; to: string }) => void }>();
  emitter.on('transition', (e) => (sink += e.to.length));
  const bus = new TroupeBus('bench-session', Date.now);
  bus.on('*', (e: TroupeEvent) => (sink += e.seq));
  const paths = ['STRATEGIC.ceo', 'CREATIVE.game_designer', 'TECHNICAL.lead_engineer'];

  const samples = await interleaved(RUNS, 2, {
    emitter: () => perCall((i) => emitter.emit('transition', { from: paths[i % 3]!, to: paths[(i + 1) % 3]! })),
    publish: () => perCall((i) => bus.deliver(bus.stamp(event('transition', { from: paths[i % 3]!, to: paths[(i + 1) % 3]!, reason: 'bench', kind: 'agent' })))),
  });
  const base = median(samples.emitter);
  const publish = median(samples.publish);
  process.stdout.write(`publishing one event to one subscriber, ${N.toLocaleString('en')} events per run, median of ${RUNS} interleaved runs (sink ${sink % 10}):\n`);
  process.stdout.write(`  eventemitter3 emit (baseline)                         ${base.toFixed(0).padStart(6)} ns\n`);
  process.stdout.write(`  troupe publish (build, stamp seq + time, deliver)     ${publish.toFixed(0).padStart(6)} ns = ${(publish / base).toFixed(1)}x the bare emit   (target <= 1 µs)\n`);
}

// Where the CLI path's layers spend a turn: the synchronous time of each entry point of the rolling memory
// and of the journal recorder, summed over an instrumented session (wall time inside each call, so it reads
// alike on a busy machine as long as the call is not preempted); an entry point called inside another counts in
// its own line only. The timed runs are never instrumented.
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { Compressor } from '../src/memory/compressor.js';
import { Memory } from '../src/memory/memory.js';
import { MemoryPromptBuilder } from '../src/memory/memory-prompt-builder.js';
import { FullHistoryPromptBuilder } from '../src/memory/prompt-builder.js';
import { ModelSummariser } from '../src/memory/summariser.js';
import { JournalRecorder } from '../src/session/recorder.js';

type Proto = Record<string, unknown>;

/** The label of the garbage collector's pauses (layer "gc"). */
export const GC = 'garbage collection pauses';

/** The entry points timed, by layer: [label, prototype, method]. */
const POINTS: [layer: string, label: string, proto: Proto, method: string][] = [
  ['memory', 'prompt build (rolling memory: prefix, pins, summaries, recent turns, token counts)', MemoryPromptBuilder.prototype as unknown as Proto, 'build'],
  ['memory', 'record a message (raw turn; counted when a count is read)', Memory.prototype as unknown as Proto, 'recordAgent'],
  ['memory', 'record a directive (turn typed, decisions pinned)', Memory.prototype as unknown as Proto, 'recordDirective'],
  ['memory', 'record an approval (pinned)', Memory.prototype as unknown as Proto, 'recordApproval'],
  ['memory', 'compression check and fold (its summary call apart)', Compressor.prototype as unknown as Proto, 'maybeCompress'],
  ['memory', 'summary call (messages built, reply parsed; model time excluded)', ModelSummariser.prototype as unknown as Proto, 'summarise'],
  ['bare', 'prompt build (full history, the bare path)', FullHistoryPromptBuilder.prototype as unknown as Proto, 'build'],
  [
    'store',
    'step line (format 8: its input, the usage before it and the call it starts, not the events step() derives: slimmed, serialised, screened, sealed, written)',
    JournalRecorder.prototype as unknown as Proto,
    'step',
  ],
  ['store', 'fact lines (memory work, a usage no step carried)', JournalRecorder.prototype as unknown as Proto, 'facts'],
  ['store', 'checkpoint (state serialised; the write is off the event loop)', JournalRecorder.prototype as unknown as Proto, 'take'],
];

/**
 * Runs `session` (one session; it calls `measure(true)` from the first timed turn and `measure(false)` at the
 * last, and resolves with the transitions between) with every entry point wrapped, and returns µs per
 * transition by layer and label, and the garbage collector's pauses meanwhile (layer "gc"). The wrappers are
 * removed afterwards.
 */
export async function layerBreakdown(session: (measure: (on: boolean) => void) => Promise<number>): Promise<Map<string, Map<string, number>>> {
  const spent = new Map<string, number>();
  let on = false;
  // Time in entry points called inside the one running (a compression check runs the summary call): each counts its own only.
  const nested: number[] = [];
  const originals = POINTS.map(([, label, proto, method]) => {
    const original = proto[method] as (...args: unknown[]) => unknown;
    proto[method] = function (this: unknown, ...args: unknown[]) {
      if (!on) return original.apply(this, args);
      const t0 = performance.now();
      nested.push(0);
      try {
        // An async method's synchronous part: up to its first await.
        return original.apply(this, args);
      } finally {
        const took = performance.now() - t0;
        const inner = nested.pop()!;
        if (nested.length > 0) nested[nested.length - 1]! += took;
        spent.set(label, (spent.get(label) ?? 0) + took - inner);
      }
    };
    return () => {
      proto[method] = original;
    };
  });
  // Garbage collection pauses of the main thread while measuring: the layers' allocations cost here, not in any entry point.
  let gc = 0;
  const observer = new PerformanceObserver((list) => {
    if (on) for (const entry of list.getEntries()) gc += entry.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  let transitions = 0;
  try {
    transitions = await session((value) => {
      on = value;
    });
  } finally {
    observer.disconnect();
    for (const restore of originals) restore();
  }
  spent.set(GC, gc);
  const out = new Map<string, Map<string, number>>();
  for (const [layer, label] of [...POINTS, ['gc', GC] as const]) {
    const us = ((spent.get(label) ?? 0) * 1000) / Math.max(1, transitions);
    if (!out.has(layer)) out.set(layer, new Map());
    out.get(layer)!.set(label, us);
  }
  return out;
}

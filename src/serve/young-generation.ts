import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/**
 * How large a server lets V8's young generation grow (MiB, its two semi-spaces together). V8 doubles it while
 * most young objects survive, up to 32 MiB: a thousand readers connecting at once (each a socket, a parser, a
 * request, a response and a reader that all live on) made it grow, and each scavenge of it then copied most of
 * it, 28-67 ms during which no request was answered. Kept small, scavenges stay short.
 */
export const YOUNG_GENERATION_MIB = 8;

/** Where the cap reads the young generation's size and sets V8's growth factor (a test's hand, or V8). */
export interface YoungGenerationControl {
  sizeBytes(): number;
  growthFactor(factor: number): void;
  /** Calls `check` after each young-generation collection; returns what stops it. */
  afterScavenges(check: () => void): () => void;
}

/** This process's V8. */
export const v8YoungGeneration: YoungGenerationControl = {
  sizeBytes: () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0,
  // The semi-space size itself is fixed when the heap is made (--max-semi-space-size is read once); the growth
  // factor is read each time the young generation grows, so a running process can stop it growing.
  growthFactor: (factor) => setFlagsFromString(`--semi-space-growth-factor=${factor}`),
  afterScavenges: (check) => {
    const observer = new PerformanceObserver((list) => {
      if (list.getEntries().some((e) => (e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR)) check();
    });
    observer.observe({ entryTypes: ['gc'] });
    return () => observer.disconnect();
  },
};

/**
 * Keeps the young generation at most `mib` MiB: V8 grows it as it would until it reaches that size, and not
 * past it (growth is stopped after each scavenge that finds it there, and allowed again if V8 shrinks it).
 * Returns what undoes the cap's watch (the growth factor stays as it was last set).
 */
export function capYoungGeneration(mib = YOUNG_GENERATION_MIB, control: YoungGenerationControl = v8YoungGeneration): () => void {
  const cap = mib * 1024 * 1024;
  let growing: boolean | null = null;
  const check = () => {
    const grow = control.sizeBytes() < cap;
    if (grow === growing) return;
    growing = grow;
    control.growthFactor(grow ? 2 : 1);
  };
  check();
  return control.afterScavenges(check);
}

/** BENCH_QUICK=1: fewer runs and smaller sizes, for a quick look (figures are noisier). */
export const QUICK = process.env.BENCH_QUICK === '1';

/** Median of a list of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Formats a number of milliseconds with sensible precision. */
export function ms(value: number): string {
  return value < 1 ? `${(value * 1000).toFixed(1)} µs` : `${value.toFixed(2)} ms`;
}

/** A ratio as "1.23x". */
export function ratio(value: number, base: number): string {
  return `${(value / base).toFixed(2)}x`;
}

/** Runs each named task once per round, in turn, so drift in the machine's load hits them all alike; returns every task's samples. */
export async function interleaved<K extends string>(rounds: number, warmup: number, tasks: Record<K, () => number | Promise<number>>): Promise<Record<K, number[]>> {
  const names = Object.keys(tasks) as K[];
  const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let r = 0; r < warmup + rounds; r++) {
    for (const name of names) {
      const value = await tasks[name]();
      if (r >= warmup) samples[name].push(value);
    }
  }
  return samples;
}

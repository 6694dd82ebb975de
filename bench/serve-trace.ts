// SERVE_TRACE=1: what a serve bench server's session creation waits on. The server's callback file calls (open, write,
// fsync, close: what libuv's thread pool runs) are timed from call to callback, with how many were on the pool when
// each was called, and the creation requests are timed from arrival to answer, so a creation's wait is put down to
// JS before its creates (their calls start late), the pool (they start at once and return late) or the disk.
import { createRequire } from 'node:module';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const fs = require('node:fs') as typeof import('node:fs');
const { syncBuiltinESMExports } = require('node:module') as typeof import('node:module');

/** One timed call: what it was, when it was called and when its callback ran (ms, performance clock), and the pool calls in flight when it was called. */
interface Call {
  what: string;
  at: number;
  done: number;
  queued: number;
}

const now = () => performance.now();

/** The kind of a path a creation touches: the lock, the document, the journal, the directory (or other). */
function kindOf(path: unknown): string {
  const p = String(path);
  if (p.endsWith('.lock')) return 'lock';
  if (p.endsWith('.jsonl')) return 'journal';
  if (p.endsWith('.json')) return 'document';
  return 'other';
}

/** Figures of the traced window, as lines. */
export interface TraceFigures {
  lines: string[];
}

/**
 * Starts tracing this process's file calls (patches node:fs's callback calls and updates the ESM bindings, so the
 * store's `import { open } from 'node:fs'` goes through the wrappers); `request` times a creation request.
 */
export function traceFileCalls(): { begin: () => void; request: (method: string, url: string) => () => void; end: () => TraceFigures } {
  const calls: Call[] = [];
  const requests: { at: number; done: number }[] = [];
  let inFlight = 0;
  let tracing = false;
  let began = 0;
  // The loop's active milliseconds at each 100 ms from the start: how busy the main thread was while sessions were created.
  const busy: [at: number, active: number][] = [];
  const sample = () => busy.push([now(), performance.eventLoopUtilization().active]);
  let sampler: NodeJS.Timeout | undefined;
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const wrap = <K extends 'open' | 'fsync' | 'write' | 'close'>(name: K, describe: (args: unknown[]) => string) => {
    const original = fs[name] as (...args: unknown[]) => void;
    (fs as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      const callback = args.at(-1);
      if (!tracing || typeof callback !== 'function') return original(...args);
      const call: Call = { what: describe(args), at: now(), done: 0, queued: inFlight };
      inFlight += 1;
      args[args.length - 1] = (...result: unknown[]) => {
        inFlight -= 1;
        call.done = now();
        calls.push(call);
        if (name === 'open' && typeof result[1] === 'number') fds.set(result[1], call.what.slice('open '.length));
        (callback as (...r: unknown[]) => void)(...result);
      };
      return original(...args);
    };
  };
  const fds = new Map<number, string>();
  wrap('open', (args) => `open ${kindOf(args[0])}`);
  wrap('fsync', (args) => `fsync ${fds.get(args[0] as number) ?? 'fd'}`);
  wrap('write', () => 'write');
  wrap('close', () => 'close');
  syncBuiltinESMExports();
  return {
    begin() {
      tracing = true;
      began = now();
      loop.enable();
      sample();
      sampler = setInterval(sample, 100);
    },
    request(method, url) {
      if (!tracing || method !== 'POST' || url !== '/v1/sessions') return () => undefined;
      const entry = { at: now(), done: 0 };
      requests.push(entry);
      return () => {
        entry.done = now();
      };
    },
    end() {
      tracing = false;
      loop.disable();
      clearInterval(sampler);
      const q = (values: number[], p: number) => {
        const sorted = [...values].sort((a, b) => a - b);
        return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
      };
      const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
      const lines: string[] = [];
      const at = (list: number[]) => `p50 ${s(q(list, 0.5) - began)}, all ${s(q(list, 1) - began)}`;
      lines.push(`creation requests (${requests.length}): arrived ${at(requests.map((r) => r.at))}; answered ${at(requests.map((r) => r.done))}`);
      const kinds = [...new Set(calls.map((c) => c.what))].sort();
      for (const kind of kinds) {
        const of = calls.filter((c) => c.what === kind);
        const took = of.map((c) => c.done - c.at);
        lines.push(
          `${kind.padEnd(14)} ${String(of.length).padStart(6)} calls: called ${at(of.map((c) => c.at))}; call -> callback p50 ${q(took, 0.5).toFixed(1)} ms, p90 ${q(took, 0.9).toFixed(1)} ms, max ${q(took, 1).toFixed(1)} ms; pool calls in flight when called p50 ${q(
            of.map((c) => c.queued),
            0.5,
          )}, max ${q(
            of.map((c) => c.queued),
            1,
          )}`,
        );
      }
      const answered = Math.max(...requests.map((r) => r.done));
      // The samples taken from `from` to `to` (ms on the performance clock): the loop's active share between the first and last.
      const share = (from: number, to: number) => {
        const within = busy.filter(([at]) => at >= from && at <= to);
        const first = within[0];
        const last = within.at(-1);
        return first && last && last[0] > first[0] ? `${((100 * (last[1] - first[1])) / (last[0] - first[0])).toFixed(0)}%` : '-';
      };
      const halves = Array.from({ length: Math.ceil((answered - began) / 500) }, (_, i) => share(began + i * 500, began + i * 500 + 600));
      lines.push(`main thread busy (event-loop utilisation) until the last creation was answered ${share(began, answered + 100)}, by 0.5 s: ${halves.join(' ')}`);
      lines.push(`event-loop delay p50 ${(loop.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms`);
      return { lines };
    },
  };
}

// Where a server's CPU goes, by part, from a CPU profile of its measured window (SERVE_PROFILE): each sample is put
// down to the first part, in the order below, that a frame on its stack belongs to (a journal write made inside a
// turn is the journal's, a frame built inside an HTTP handler the feed's), else to the source directory of its
// outermost project frame. GC, idle and V8's own work are their own parts.
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
}

interface Profile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

type Rule = [part: string, test: (f: CallFrame) => boolean];

const inFile = (f: CallFrame, ...files: string[]) => files.some((file) => f.url.endsWith(`/${file}`));

// First match wins, tried over the whole stack; 'model' only where the bench's model is itself on the CPU.
const RULES: Rule[] = [
  ['create (host)', (f) => f.functionName === 'create' && inFile(f, 'host.js', 'host.ts')],
  [
    'checkpoint',
    (f) =>
      (inFile(f, 'recorder.js', 'recorder.ts') && (f.functionName === 'take' || f.functionName === 'drain')) ||
      (inFile(f, 'lowdb-store.js', 'lowdb-store.ts') && f.functionName === 'checkpoint') ||
      inFile(f, 'document-file.js', 'document-file.ts'),
  ],
  ['journal', (f) => (inFile(f, 'lowdb-store.js', 'lowdb-store.ts') && f.functionName === 'append') || inFile(f, 'journal-file.js', 'journal-file.ts')],
  ['store (create, lock)', (f) => inFile(f, 'lowdb-store.js', 'lowdb-store.ts', 'lock.js', 'lock.ts')],
  ['feed/SSE', (f) => /\/(event-feed|sse-frame|sse-client|sse-stream|loop-share|stream-admission)\.[jt]s$/.test(f.url)],
  ['HTTP', (f) => /_http_|\/hono\/|node-server|\/serve\/(app|api-frame|request-body|session-routes|origin-guard|auth)\.[jt]s$/.test(f.url) || f.functionName === 'writev'],
];
const ENGINE = new Set(['kernel', 'session', 'engine', 'arbiter', 'team', 'runtime', 'directive', 'usage', 'warming', 'llm', 'commands', 'config']);
const LEAF_PARTS = new Set(['(garbage collector)', '(idle)', '(program)']);

/** The part one sample's stack (leaf first) belongs to. */
function partOf(stack: CallFrame[]): string {
  const leaf = stack[0]!;
  if (LEAF_PARTS.has(leaf.functionName)) return leaf.functionName;
  for (const [part, test] of RULES) if (stack.some(test)) return part;
  if (/serve-floor|serve\.bench/.test(leaf.url)) return 'model / replay (bench)';
  const own = stack.filter((f) => /\/(dist|src)\//.test(f.url)).at(-1);
  if (!own) return 'node (timers, sockets, microtasks)';
  const dir = own.url.split(/\/(?:dist|src)\//)[1]!.split('/')[0]!;
  return ENGINE.has(dir) ? 'kernel, session, engine' : dir.replace(/\.[jt]s$/, '');
}

/** A heap sampling profile (HeapProfiler.stopSampling): a tree of allocation sites with the bytes sampled at each. */
interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children?: HeapNode[];
}

/** Bytes of a heap sampling profile by the part whose code allocated them (the rules CPU samples go by), largest first. */
export function bytesByPart(file: string): [string, number][] {
  const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
  const totals = new Map<string, number>();
  // Depth first with the stack leaf first, as partOf reads it; the root frame is not a function.
  const walk = (node: HeapNode, stack: CallFrame[]) => {
    const here = [node.callFrame, ...stack];
    if (node.selfSize > 0) {
      const part = partOf(here);
      totals.set(part, (totals.get(part) ?? 0) + node.selfSize);
    }
    for (const child of node.children ?? []) walk(child, here);
  };
  for (const child of head.children ?? []) walk(child, []);
  return [...totals].sort((a, b) => b[1] - a[1]);
}

/** Milliseconds of a profile by part, busiest first (idle included). */
export function cpuByPart(file: string): [string, number][] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const parts = new Map<number, string>();
  const totals = new Map<string, number>();
  for (const [i, id] of profile.samples.entries()) {
    let part = parts.get(id);
    if (part === undefined) {
      const stack: CallFrame[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!.callFrame);
      part = partOf(stack);
      parts.set(id, part);
    }
    totals.set(part, (totals.get(part) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

/**
 * Lines of µs (or, with `unit: 'bytes'`, bytes of a heap profile: `what` says which) per turn by part for two
 * servers measured in the same run: what each part costs troupe against the floor.
 */
export function partLines(troupe: [string, number][], floor: [string, number][], turns: { troupe: number; floor: number }, options: { unit?: 'ms' | 'bytes'; what?: string } = {}): string[] {
  const busy = (parts: [string, number][]) => parts.reduce((n, [part, ms]) => (part === '(idle)' ? n : n + ms), 0);
  const f = new Map(floor);
  const names = [...new Set([...troupe.map(([p]) => p), ...floor.map(([p]) => p)])].filter((p) => p !== '(idle)');
  const scale = options.unit === 'bytes' ? 1 : 1000;
  const us = (ms: number | undefined, n: number) => (((ms ?? 0) * scale) / Math.max(1, n)).toFixed(0).padStart(5);
  const t = new Map(troupe);
  const head =
    options.unit === 'bytes'
      ? `    Heap bytes per turn by the part that allocated them (sampled; ${options.what ?? 'allocated'}): troupe ${us(busy(troupe), turns.troupe)}, floor ${us(busy(floor), turns.floor)}`
      : `    CPU per turn by part (µs, from each server's profile; the profiler's own cost included): troupe busy ${us(busy(troupe), turns.troupe)}, floor busy ${us(busy(floor), turns.floor)}`;
  return [head, ...names.map((p) => `      ${p.padEnd(36)} troupe ${us(t.get(p), turns.troupe)}  floor ${us(f.get(p), turns.floor)}`)];
}

// Where a process allocates: V8's sampling heap profiler with the objects that garbage collection took
// counted too (a scavenge's cost is what survives it, but how often it comes is what was allocated).
import { Session } from 'node:inspector/promises';

/** The parts of a sampling heap profile (`HeapProfiler.stopSampling`) read here. */
export interface HeapProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapProfileNode[];
}

/** One allocation site: the function that allocated, with its caller, and the bytes sampled there. */
export interface AllocationSite {
  site: string;
  bytes: number;
}

const shortUrl = (url: string) => url.replace(/^.*\/(node_modules\/|src\/|dist\/)/, '$1').replace(/^node:/, '');
const frameName = (f: HeapProfileNode['callFrame']) => `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${f.lineNumber + 1}`;

/** The sampled bytes by allocating function and its caller, most first. */
export function allocationSites(head: HeapProfileNode): AllocationSite[] {
  const bytes = new Map<string, number>();
  const walk = (node: HeapProfileNode, caller: string) => {
    const name = frameName(node.callFrame);
    if (node.selfSize > 0) {
      const site = `${name} <- ${caller}`;
      bytes.set(site, (bytes.get(site) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, name);
  };
  walk(head, '(root)');
  return [...bytes.entries()].map(([site, n]) => ({ site, bytes: n })).sort((a, b) => b.bytes - a.bytes);
}

/** Samples this process's allocations (one every `intervalBytes` on average) from now until the returned stop, which gives the profile's root. */
export async function sampleAllocations(intervalBytes = 16 * 1024): Promise<() => Promise<HeapProfileNode>> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  // Both flags: without them the profile holds only what is still alive when it stops.
  await session.post('HeapProfiler.startSampling', { samplingInterval: intervalBytes, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    session.disconnect();
    return profile.head as unknown as HeapProfileNode;
  };
}

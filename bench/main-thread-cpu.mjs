// The CPU of this process's main thread alone, apart from V8's compiler and garbage-collector threads, which
// process.cpuUsage() counts too (Linux: the thread's schedstat, in nanoseconds). bench/thread-cpu.ts reads the
// same for the TypeScript benches; the SynthDev children run under plain node, without tsx, so they read it here.
import { readFileSync } from 'node:fs';

/** Milliseconds of CPU the main thread has used so far (null where /proc is not there). */
export function mainThreadMs() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'latin1');
    return Number(stat.slice(0, stat.indexOf(' '))) / 1e6;
  } catch {
    return null;
  }
}

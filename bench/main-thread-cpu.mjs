// The CPU of this process's main thread alone, apart from V8's compiler and garbage-collector threads, which
// process.cpuUsage() counts too: Linux's /proc stat of the thread, in clock ticks of 10 ms (sum it over several
// runs). null where there is no /proc.
import { readFileSync } from 'node:fs';

/** Milliseconds of CPU the main thread has used so far (null where /proc is not there). */
export function mainThreadMs() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // After the command's name (which may hold spaces, in parentheses): state, …, utime (12th), stime (13th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

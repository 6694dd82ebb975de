import { readFileSync } from 'node:fs';

/** What the operating system says of a process: whether it runs, and when it started (to tell a reused pid apart). */
export interface ProcessInfo {
  /** `running` (any live state), `zombie` (exited, not reaped: it holds nothing), or `gone`. */
  state: 'running' | 'zombie' | 'gone';
  /** Start time in clock ticks since boot (Linux /proc/<pid>/stat field 22), or null where /proc is not available. */
  startTime: string | null;
}

/** True when a process with this pid exists (EPERM: it exists but belongs to someone else); zombies count as existing. */
export function pidExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Reads /proc/<pid>/stat: the state (field 3) and the start time (field 22). The command name (field 2)
 * is in parentheses and may hold spaces or parentheses itself, so the fields are counted after the last ")".
 */
export function parseProcStat(text: string): { state: string; startTime: string } | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const state = fields[0];
  const startTime = fields[19];
  return state && startTime && /^\d+$/.test(startTime) ? { state, startTime } : null;
}

/** What is known of a process: on Linux from /proc (a zombie is not alive), elsewhere from `kill(pid, 0)`. */
export function processInfo(pid: number, procRoot = '/proc'): ProcessInfo {
  if (!Number.isInteger(pid) || pid <= 0) return { state: 'gone', startTime: null };
  let text: string;
  try {
    text = readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return { state: pidExists(pid) && !hasProc(procRoot) ? 'running' : 'gone', startTime: null };
    return { state: pidExists(pid) ? 'running' : 'gone', startTime: null };
  }
  const stat = parseProcStat(text);
  if (!stat) return { state: pidExists(pid) ? 'running' : 'gone', startTime: null };
  // Z: exited, waiting for a parent that never reaps it (PID 1 in many containers); X: dead.
  return { state: stat.state === 'Z' || stat.state === 'X' ? 'zombie' : 'running', startTime: stat.startTime };
}

function hasProc(procRoot: string): boolean {
  try {
    readFileSync(`${procRoot}/self/stat`);
    return true;
  } catch {
    return false;
  }
}

/** This process's start time (as recorded in its locks), or null where /proc is not available. */
export function ownStartTime(): string | null {
  return processInfo(process.pid).startTime;
}

import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { UserError } from '../errors.js';
import { ownStartTime, pidExists, processInfo } from './process-info.js';

/** Another live process (or another handle in this one) has the session open. */
export class SessionLockedError extends UserError {
  constructor(
    readonly sessionId: string,
    readonly pid: number,
    readonly host: string | null = null,
    staleMs = 0,
  ) {
    super(
      host
        ? `session ${sessionId} is open in process ${pid} on host ${host} — close it there first (its lock is taken over once it has not been refreshed for ${Math.round(staleMs / 1000)} s; TROUPE_LOCK_STALE_SECONDS)`
        : `session ${sessionId} is open in process ${pid}${pid === process.pid ? ' (this one)' : ''} — close it there first`,
    );
  }
}

/** A lock path that is not a file (a directory): nothing troupe wrote, so it is not taken over. */
export class LockPathError extends UserError {}

/** True when a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  return pidExists(pid);
}

/** How long another host's lock stands without being refreshed (TROUPE_LOCK_STALE_SECONDS, default 300). */
export function lockStaleMs(env: Record<string, string | undefined> = process.env): number {
  const seconds = Number(env.TROUPE_LOCK_STALE_SECONDS);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 300_000;
}

/** What a lock file says: `<pid> <nonce> <start time> <host>` (older troupes wrote only `<pid> <nonce>`). */
export interface LockHolder {
  text: string;
  pid: number;
  /** The holder's start time (/proc/<pid>/stat field 22), or null (an old lock, or no /proc). */
  startTime: string | null;
  /** The holder's host name, or null (an old lock: taken to be this host). */
  host: string | null;
  /** Last refreshed (the holder touches its lock while it runs). */
  mtimeMs: number;
}

/** Reads a lock file; null when there is none. */
export function readLock(path: string): LockHolder | null {
  try {
    const text = readFileSync(path, 'utf8');
    const [pid = '', , start, host] = text.trim().split(/\s+/);
    return { text, pid: Number.parseInt(pid, 10), startTime: start && start !== '-' ? start : null, host: host ?? null, mtimeMs: statSync(path).mtimeMs };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'EISDIR') throw new LockPathError(`${path} is a directory, not a lock file — remove it (rmdir) if no troupe has the session open`);
    throw error;
  }
}

/**
 * Why a lock no longer holds, or null while it does: another host's lock not refreshed within `staleMs`;
 * on this host, a holder that is gone, a zombie (exited, never reaped), or a different process under a
 * reused pid (its start time differs from the one recorded).
 */
export function staleReason(holder: LockHolder, options: { now?: number; staleMs?: number; host?: string } = {}): string | null {
  const here = options.host ?? hostname();
  if (holder.host !== null && holder.host !== here) {
    const age = (options.now ?? Date.now()) - holder.mtimeMs;
    return age > (options.staleMs ?? lockStaleMs()) ? `host ${holder.host} has not refreshed it for ${Math.round(age / 1000)} s` : null;
  }
  const info = processInfo(holder.pid);
  if (info.state === 'gone') return 'its process is gone';
  if (info.state === 'zombie') return 'its process has exited (a zombie nobody reaped)';
  if (holder.startTime !== null && info.startTime !== null && holder.startTime !== info.startTime) return 'its pid now belongs to another process';
  return null;
}

// Locks this process holds, with their refresh timers: a lock file naming our own pid that is not in
// here is a leftover from an earlier process that had the same pid, so it is stale.
const held = new Map<string, NodeJS.Timeout>();

let tmpSeq = 0;
let ownStart: string | null | undefined;

// The record goes into a private temp file that is then hard-linked into place: link() fails with
// EEXIST when the lock exists, and the lock appears with its content, so a reader never sees an
// empty lock (which it would take for a stale one). The nonce tells two locks of one pid apart.
function lockText(): string {
  ownStart ??= ownStartTime();
  return `${process.pid} ${randomBytes(6).toString('hex')} ${ownStart ?? '-'} ${hostname()}\n`;
}

function tryCreate(path: string): boolean {
  const tmp = `${path}.${process.pid}-${++tmpSeq}.tmp`;
  writeFileSync(tmp, lockText());
  try {
    linkSync(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(tmp);
  }
}

/** Marks a held lock as fresh (its mtime), so processes on other hosts see the holder is still there. */
export function refreshLock(path: string): void {
  if (!held.has(path)) return;
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // gone or unwritable: the next open decides
  }
}

function hold(path: string, staleMs: number): void {
  const timer = setInterval(() => refreshLock(path), Math.max(1_000, Math.min(60_000, staleMs / 4)));
  timer.unref();
  held.set(path, timer);
}

/**
 * Takes the lock file for a session, taking over a stale one (see `staleReason`); throws
 * SessionLockedError if it is held, LockPathError if the path is a directory.
 */
export function acquireLock(path: string, sessionId: string, options: { staleMs?: number } = {}): void {
  const staleMs = options.staleMs ?? lockStaleMs();
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path)) {
      hold(path, staleMs);
      return;
    }
    const holder = readLock(path);
    if (!holder) continue;
    const mine = holder.pid === process.pid && (holder.host === null || holder.host === hostname());
    if (mine ? held.has(path) : staleReason(holder, { staleMs }) === null) {
      throw new SessionLockedError(sessionId, holder.pid, holder.host !== null && holder.host !== hostname() ? holder.host : null, staleMs);
    }
    // Stale: move it aside atomically, so of two processes taking over only one removes it.
    const aside = `${path}.stale-${process.pid}-${attempt}`;
    try {
      renameSync(path, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = readLock(aside);
    if (moved && moved.text !== holder.text) {
      // We moved a fresh lock someone took meanwhile: put it back and defer to them.
      try {
        linkSync(aside, path);
      } catch {
        // a third process holds it now; either way it is not ours
      }
      unlinkSync(aside);
      throw new SessionLockedError(sessionId, moved.pid);
    }
    unlinkSync(aside);
  }
  const holder = readLock(path);
  throw new SessionLockedError(sessionId, holder?.pid ?? -1);
}

/** Releases a lock this process holds (only if the file still names this process). */
export function releaseLock(path: string): void {
  const timer = held.get(path);
  if (!timer) return;
  clearInterval(timer);
  held.delete(path);
  let holder: LockHolder | null = null;
  try {
    holder = readLock(path);
  } catch {
    return;
  }
  if (holder && holder.pid === process.pid) {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
}

/** The pid holding a session's lock, or null when it is free or stale. */
export function lockHolder(path: string): number | null {
  const holder = readLock(path);
  if (!holder) return null;
  if (holder.pid === process.pid && (holder.host === null || holder.host === hostname())) return held.has(path) ? holder.pid : null;
  return staleReason(holder) === null ? holder.pid : null;
}

process.on('exit', () => {
  for (const path of [...held.keys()]) releaseLock(path);
});

import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { UserError } from '../llm/errors.js';

/** Another live process (or another handle in this one) has the session open. */
export class SessionLockedError extends UserError {
  constructor(readonly sessionId: string, readonly pid: number) {
    super(`session ${sessionId} is open in process ${pid}${pid === process.pid ? ' (this one)' : ''} — close it there first`);
  }
}

/** True when a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Locks this process holds: a lock file naming our own pid that is not in here is a leftover
// from an earlier process that had the same pid, so it is stale.
const held = new Set<string>();

function readPid(path: string): { text: string; pid: number } | null {
  try {
    const text = readFileSync(path, 'utf8');
    return { text, pid: Number.parseInt(text.trim().split(/\s+/)[0] ?? '', 10) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

let tmpSeq = 0;

// The pid goes into a private temp file that is then hard-linked into place: link() fails with
// EEXIST when the lock exists, and the lock appears with its content, so a reader never sees an
// empty lock (which it would take for a stale one). The nonce tells two locks of one pid apart.
function tryCreate(path: string): boolean {
  const tmp = `${path}.${process.pid}-${++tmpSeq}.tmp`;
  writeFileSync(tmp, `${process.pid} ${randomBytes(6).toString('hex')}\n`);
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

/** Takes the lock file for a session, taking over a stale one (holder gone); throws SessionLockedError if held. */
export function acquireLock(path: string, sessionId: string): void {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path)) {
      held.add(path);
      return;
    }
    const holder = readPid(path);
    if (!holder) continue;
    const mine = holder.pid === process.pid;
    if ((mine && held.has(path)) || (!mine && pidAlive(holder.pid))) throw new SessionLockedError(sessionId, holder.pid);
    // Stale: move it aside atomically, so of two processes taking over only one removes it.
    const aside = `${path}.stale-${process.pid}-${attempt}`;
    try {
      renameSync(path, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = readPid(aside);
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
  const holder = readPid(path);
  throw new SessionLockedError(sessionId, holder?.pid ?? -1);
}

/** Releases a lock this process holds (only if the file still names this process). */
export function releaseLock(path: string): void {
  if (!held.delete(path)) return;
  const holder = readPid(path);
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
  const holder = readPid(path);
  if (!holder) return null;
  if (holder.pid === process.pid) return held.has(path) ? holder.pid : null;
  return pidAlive(holder.pid) ? holder.pid : null;
}

process.on('exit', () => {
  for (const path of [...held]) releaseLock(path);
});

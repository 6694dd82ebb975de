import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, link, linkSync, lstatSync, open, openSync, readSync, rename, renameSync, unlinkSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../errors.js';
import { openOwnFile } from './own-file.js';
import { ownStartTime, pidExists, processInfo } from '../tools/process-info.js';

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
        : pid > 0
          ? `session ${sessionId} is open in process ${pid}${pid === process.pid ? ' (this one)' : ''} — close it there first`
          : `session ${sessionId} is being opened by another process — close it there first, or try again in a few seconds`,
    );
  }
}

/** A lock path that is not a regular file (a directory, a link, a FIFO): nothing troupe wrote, so it is not taken over. */
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

/**
 * How long a lock file without its whole record (empty, or no final newline) counts as held: its creator
 * writes the record right after making it (in the same call, or the next thread-pool job), so it is that young
 * only while being written. One left by a process that died between the two is taken over once it is this old.
 */
export const LOCK_WRITE_GRACE_MS = 10_000;

/** True when a lock file holds its whole record (creators write it in one piece, ending with a newline). */
export function lockComplete(holder: LockHolder): boolean {
  return holder.text.endsWith('\n');
}

/**
 * A lock released by its holder: `released`, padded to the length of the record it replaces (written over it in
 * place, so a reader never finds it empty). The file stays for the next holder to take over in place: removed at
 * every close and made again at every open, each lock was an inode freed and one made, and on an ext4 without a
 * journal each inode freed makes the creates after it slower (see checkpoint-slots.ts).
 */
export function releasedText(length: number): string {
  return `released${' '.repeat(Math.max(0, length - 'released'.length - 1))}\n`;
}

/** True when a lock file says its holder released it. */
export function lockReleased(holder: LockHolder): boolean {
  return lockComplete(holder) && holder.text.trim() === 'released';
}

/** The most of a lock file read: its record is one short line (a bigger file is incomplete, so taken over once old). */
const LOCK_READ_MAX = 4096;

/**
 * Reads a lock file; null when there is none. It is read as a regular file at its own name (a data dir can come
 * with a cloned repository): a FIFO there blocked every `troupe sessions` for good, and a link to /dev/zero read 2 GiB.
 */
export function readLock(path: string): LockHolder | null {
  let fd: number;
  try {
    fd = openOwnFile(
      path,
      constants.O_RDONLY,
      'a lock file',
      (found) => new LockPathError(`${path} is ${found}, not a lock file — remove it${found === 'a directory' ? ' (rmdir)' : ''} if no troupe has the session open`),
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const bytes = Buffer.alloc(LOCK_READ_MAX);
    const text = bytes.subarray(0, readSync(fd, bytes, 0, LOCK_READ_MAX, 0)).toString('utf8');
    const [pid = '', , start, host] = text.trim().split(/\s+/);
    return { text, pid: Number.parseInt(pid, 10), startTime: start && start !== '-' ? start : null, host: host ?? null, mtimeMs: fstatSync(fd).mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/**
 * Why a lock no longer holds, or null while it does: another host's lock not refreshed within `staleMs`;
 * on this host, a holder that is gone, a zombie (exited, never reaped), or a different process under a
 * reused pid (its start time differs from the one recorded).
 */
export function staleReason(holder: LockHolder, options: { now?: number; staleMs?: number; host?: string } = {}): string | null {
  if (lockReleased(holder)) return 'it was released';
  if (!lockComplete(holder)) {
    // Being written (its creator is between the create and the write), or left so by a creator that died there.
    const age = (options.now ?? Date.now()) - holder.mtimeMs;
    return age > LOCK_WRITE_GRACE_MS ? `it has been incomplete for ${Math.round(age / 1000)} s (its writer died)` : null;
  }
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

// Locks this process holds, with their refresh timers and when each was last refreshed: a lock file naming our
// own pid that is not in here is a leftover from an earlier process that had the same pid, so it is stale.
// `linked`: the lock is a link to this process's holder file (see acquireNewLock), not a file of its own.
const held = new Map<string, { timer: NodeJS.Timeout; everyMs: number; refreshedAt: number; text: string; linked: Holder | null }>();

let ownStart: string | null | undefined;
// The nonce tells two locks of one pid apart: random per process, then counted (a random draw per lock cost
// more than the rest of writing it under load).
let nonceBase: number | undefined;
let nonceSeq = 0;

function lockText(): string {
  ownStart ??= ownStartTime();
  nonceBase ??= randomBytes(3).readUIntBE(0, 3);
  nonceSeq = (nonceSeq + 1) % 0x1000000;
  const nonce = nonceBase.toString(16).padStart(6, '0') + nonceSeq.toString(16).padStart(6, '0');
  return `${process.pid} ${nonce} ${ownStart ?? '-'} ${hostname()}\n`;
}

// One create of the file with its record (open O_EXCL, write, close): a single directory operation. A reader
// can find it empty or partial only in the instant between the create and the write, and takes such a file
// for held while it is younger than LOCK_WRITE_GRACE_MS (see staleReason), so it never takes a lock being
// written for a stale one. A write that fails (a full disk) removes the file it created.
function tryCreate(path: string, text: string): boolean {
  const started = Date.now();
  try {
    writeFileSync(path, text, { flag: 'wx' });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    if (failure.code === 'EEXIST') return false;
    if (failure.syscall !== 'open') {
      try {
        unlinkSync(path);
      } catch {
        // gone already
      }
    }
    throw error;
  }
  // A creator held up between the create and the write for most of the grace period (a stopped process, a
  // swapped-out machine) may have had its empty file taken over meanwhile: it holds the lock only if the file
  // is still its own.
  if (Date.now() - started > LOCK_WRITE_GRACE_MS / 2) return readLock(path)?.text === text;
  return true;
}

/** Marks a held lock as fresh (its mtime), so processes on other hosts see the holder is still there. */
export function refreshLock(path: string, now: number = Date.now()): void {
  const lock = held.get(path);
  if (!lock) return;
  lock.refreshedAt = now;
  try {
    const date = new Date(now);
    utimesSync(path, date, date);
  } catch {
    // gone or unwritable: the next open decides
  }
}

/**
 * Refreshes a held lock if it was last refreshed an interval ago or more (the interval its timer refreshes
 * at, staleMs / 4): a session's writes call this, so a busy session costs no more than one touch an interval.
 */
export function refreshLockIfDue(path: string, now: number = Date.now()): void {
  const lock = held.get(path);
  if (lock && now - lock.refreshedAt >= lock.everyMs) refreshLock(path, now);
}

function hold(path: string, text: string, staleMs: number, now: number, linked: Holder | null = null): void {
  if (linked) linked.links += 1;
  const everyMs = Math.max(1_000, Math.min(60_000, staleMs / 4));
  const timer = setInterval(() => refreshLock(path), everyMs);
  timer.unref();
  held.set(path, { timer, everyMs, refreshedAt: now, text, linked });
}

/** This process's holder file in one directory: its path, the record it holds (every lock linked to it says this), its inode, and how many locks this process holds linked to it. */
interface Holder {
  dir: string;
  path: string;
  text: string;
  ino: number;
  links: number;
}

// Per directory, this process's holder file (null: the directory's file system refuses links); and every holder made,
// removed as the process exits.
const holders = new Map<string, Holder | null>();
const holderFiles = new Set<string>();

/** The name of the holder file of the process whose record is `text` (its pid and nonce), in `dir`. */
export function holderPathOf(dir: string, text: string): string | null {
  const [pid, nonce] = text.trim().split(/\s+/);
  return pid && nonce && /^\d+$/.test(pid) && /^[0-9a-f]+$/.test(nonce) ? join(dir, `.lock-holder-${pid}-${nonce}`) : null;
}

/**
 * This process's holder file in `dir`, made when there is none: its record, written whole before any lock links to it.
 * Made on the event loop, once for all the locks of a burst of creations (made off it, each link waited behind every
 * create queued before it). Null when it cannot be made (the directory is gone, the disk full: the next lock tries again).
 */
function holderIn(dir: string): Holder | null {
  const known = holders.get(dir);
  if (known !== undefined) return known;
  const text = lockText();
  const path = holderPathOf(dir, text)!;
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
  } catch {
    return null;
  }
  try {
    writeFileSync(fd, text);
    const holder: Holder = { dir, path, text, ino: fstatSync(fd).ino, links: 0 };
    holderFiles.add(path);
    holders.set(dir, holder);
    return holder;
  } catch {
    removeQuietly(path);
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes a holder file no lock of this process links to any more (the next new lock makes another): it lives as long as
 * the locks that share its record. A lock linked to it meanwhile (its link was under way) keeps the record it reads.
 */
function retire(holder: Holder): void {
  removeQuietly(holder.path);
  holderFiles.delete(holder.path);
  if (holders.get(holder.dir) === holder) holders.delete(holder.dir);
}

/** Removes a file, if it is there. */
function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

// A link the file system refuses (it has no hard links): the directory's locks are files of their own from then on.
const LINK_REFUSED = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'ENOSYS']);

/**
 * Links a new session's lock at `path` to this process's holder file, off the event loop: true when it is linked,
 * false when a lock is there already (EEXIST), null when no link can be made here (then a lock file of its own is).
 */
async function linkNewLock(path: string): Promise<{ linked: Holder } | 'exists' | null> {
  const dir = dirname(path);
  const holder = holderIn(dir);
  if (!holder) return null;
  return new Promise((resolve, reject) =>
    link(holder.path, path, (error) => {
      if (!error) return resolve({ linked: holder });
      if (error.code === 'EEXIST') return resolve('exists');
      if (LINK_REFUSED.has(error.code ?? '')) {
        holders.set(dir, null);
        return resolve(null);
      }
      // The holder (or the directory) went away, or it has as many links as it may: the next lock makes a new one.
      if (error.code === 'ENOENT' || error.code === 'EMLINK') {
        if (holders.get(dir) === holder) holders.delete(dir);
        return resolve(null);
      }
      reject(error);
    }),
  );
}

/**
 * A held lock linked to the holder file becomes a file of its own saying `released`, off the event loop: made beside it
 * and renamed over the link, so the name never goes missing (the inode the creation spared is made here, at the
 * session's close, where no request waits on it). The holder's record stays for the process's other locks; the next
 * open of the session takes the file over in place (see acquireLock).
 */
async function releaseLinked(path: string, text: string): Promise<void> {
  const beside = join(dirname(path), `.${basename(path)}.released-${process.pid}`);
  removeQuietly(beside);
  const call = <T>(run: (done: (error: NodeJS.ErrnoException | null, value?: T) => void) => void) =>
    new Promise<T>((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
  const fd = await call<number>((done) => open(beside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666, done));
  try {
    writeSync(fd, releasedText(Buffer.byteLength(text)), 0, 'utf8');
  } finally {
    closeSync(fd);
  }
  try {
    await call<void>((done) => rename(beside, path, done));
  } catch (error) {
    removeQuietly(beside);
    throw error;
  }
}

/**
 * Removes the holder file a lock of a process that is gone linked to, once no lock links to it any more (its own name
 * is its only link) and it still holds that process's record.
 */
function dropOrphanHolder(dir: string, text: string): void {
  const path = holderPathOf(dir, text);
  if (!path) return;
  try {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat?.isFile() && stat.nlink === 1 && readLock(path)?.text === text) unlinkSync(path);
  } catch {
    // looked at again with its next lock
  }
}

/**
 * Takes the lock file for a new session: a link (off the event loop) to this process's holder file in the same
 * directory (`.lock-holder-<pid>-<nonce>`, made once, holding the process's record), so a session's creation makes
 * no inode for its lock: on an ext4 without a journal every inode made scans past the inodes freed lately (at 1,000
 * sessions created at once, over half of the server's CPU), and the creates of one directory wait on each other.
 * The link is complete at once (the holder was written whole before); released, the lock becomes a file of its own
 * (see releaseLock). Where no link can be made, the lock file is created (open O_EXCL) off the loop and its record
 * written on the loop as the create returns: the lock counts as held from the create (a reader finds it empty until
 * the write: see LOCK_WRITE_GRACE_MS). A lock that is there already is decided by `acquireLock`.
 */
export async function acquireNewLock(path: string, sessionId: string, options: { staleMs?: number; now?: () => number } = {}): Promise<void> {
  const staleMs = options.staleMs ?? lockStaleMs();
  const now = options.now ?? Date.now;
  const linked = await linkNewLock(path);
  if (linked === 'exists') return acquireLock(path, sessionId, options);
  if (linked !== null) return hold(path, linked.linked.text, staleMs, now(), linked.linked);
  const text = lockText();
  const started = Date.now();
  const fd = await new Promise<number | null>((resolve, reject) => open(path, 'wx', (error, opened) => (error ? (error.code === 'EEXIST' ? resolve(null) : reject(error)) : resolve(opened))));
  if (fd === null) return acquireLock(path, sessionId, options);
  try {
    writeFileSync(fd, text);
  } catch (error) {
    // A write that failed (a full disk) removes the file it created.
    closeSync(fd);
    unlinkSync(path);
    throw error;
  }
  closeSync(fd);
  // Held up past half the grace period (a stopped process), the empty file may have been taken over meanwhile: it is ours only if it still holds our record.
  if (Date.now() - started > LOCK_WRITE_GRACE_MS / 2 && readLock(path)?.text !== text) return acquireLock(path, sessionId, options);
  hold(path, text, staleMs, now());
}

/**
 * Takes the lock file for a session, taking over a stale one (see `staleReason`); throws
 * SessionLockedError if it is held, LockPathError if the path is a directory.
 */
export function acquireLock(path: string, sessionId: string, options: { staleMs?: number; now?: () => number } = {}): void {
  const staleMs = options.staleMs ?? lockStaleMs();
  const now = options.now ?? Date.now;
  for (let attempt = 0; attempt < 5; attempt++) {
    const text = lockText();
    if (tryCreate(path, text)) {
      hold(path, text, staleMs, now());
      return;
    }
    const holder = readLock(path);
    if (!holder) continue;
    const complete = lockComplete(holder);
    if (!complete && staleReason(holder, { staleMs, now: now() }) === null) throw new SessionLockedError(sessionId, -1);
    const mine = complete && holder.pid === process.pid && (holder.host === null || holder.host === hostname());
    if (mine ? held.has(path) : staleReason(holder, { staleMs, now: now() }) === null) {
      throw new SessionLockedError(sessionId, holder.pid, holder.host !== null && holder.host !== hostname() ? holder.host : null, staleMs);
    }
    // Another user's lock (a shared data dir) cannot be written in place: moved aside it was removed and the open failed
    // with a bare EACCES (or the move with EPERM in a sticky folder). It is left as it is, in one line.
    const owner = lstatSync(path, { throwIfNoEntry: false })?.uid;
    const me = process.getuid?.();
    if (owner !== undefined && me !== undefined && me !== 0 && owner !== me) {
      throw new LockPathError(
        `${path} is a lock of another user (uid ${owner}), ${staleReason(holder, { staleMs, now: now() })}: troupe takes over only its own user's locks — that user, or root, removes it`,
      );
    }
    // Stale or released: move it aside atomically, so of two processes taking over only one has it.
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
    // Ours: written with our record and put back under its name, the file itself kept (no inode freed and made again).
    // A lock someone made at the name meanwhile (they found none) is theirs: ours is removed and theirs stands.
    if (takeOver(aside, path, text)) {
      hold(path, text, staleMs, now());
      return;
    }
    throw new SessionLockedError(sessionId, readLock(path)?.pid ?? -1);
  }
  const holder = readLock(path);
  throw new SessionLockedError(sessionId, holder?.pid ?? -1);
}

/**
 * Writes our record into a lock file moved aside (ours alone: see acquireLock) and links it back at `path`; false
 * when a lock was made at `path` meanwhile (then the one aside is removed). The name aside is removed either way.
 */
function takeOver(aside: string, path: string, text: string): boolean {
  // A lock linked to a holder file (another process's, gone) shares its record with that process's other locks: never
  // written into, it is unlinked, and a file of our own is made at the name.
  if ((lstatSync(aside, { throwIfNoEntry: false })?.nlink ?? 1) > 1) return takeOverLinked(aside, path, text);
  try {
    const fd = openOwnFile(aside, constants.O_WRONLY | constants.O_TRUNC, 'a lock file');
    try {
      writeFileSync(fd, text);
    } finally {
      closeSync(fd);
    }
    linkSync(aside, path);
  } catch (error) {
    unlinkSync(aside);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  unlinkSync(aside);
  return true;
}

/** takeOver of a lock that is a link (see takeOver): the link aside is removed, with its holder once no lock links to it. */
function takeOverLinked(aside: string, path: string, text: string): boolean {
  const was = readLock(aside);
  unlinkSync(aside);
  if (was) dropOrphanHolder(dirname(path), was.text);
  return tryCreate(path, text);
}

/** Stops refreshing a lock this process holds; its record as written and its holder when it is a link to one, or null when it holds none at `path`. */
function letGo(path: string): { text: string; linked: Holder | null } | null {
  const lock = held.get(path);
  if (!lock) return null;
  clearInterval(lock.timer);
  held.delete(path);
  if (lock.linked && --lock.linked.links === 0) retire(lock.linked);
  try {
    // Only a file that still holds our record (a link: still to our holder) is ours to release.
    if (lock.linked) return lstatSync(path, { throwIfNoEntry: false })?.ino === lock.linked.ino ? lock : null;
    return readLock(path)?.text === lock.text ? lock : null;
  } catch {
    return null;
  }
}

/** Releases a lock this process holds, in place: its file says `released` (see releasedText), for the next holder to take over. */
export function releaseLock(path: string): void {
  const lock = letGo(path);
  if (lock === null) return;
  // A link to the holder is no file to write into: no lock file is a free session as well.
  if (lock.linked) return removeQuietly(path);
  try {
    const fd = openOwnFile(path, constants.O_WRONLY, 'a lock file');
    try {
      writeSync(fd, releasedText(Buffer.byteLength(lock.text)), 0, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    // gone or unwritable: the next open decides (our process, gone, leaves it stale)
  }
}

/**
 * releaseLock as a session's close does it: a lock linked to the holder file becomes a file of its own saying `released`
 * (see releaseLinked), held until it is (another open of the session in this process is refused meanwhile, not taken
 * for a leftover and then written over by the release).
 */
export async function releaseLockAsync(path: string): Promise<void> {
  const lock = held.get(path);
  if (!lock?.linked) return releaseLock(path);
  let ours = false;
  try {
    ours = lstatSync(path, { throwIfNoEntry: false })?.ino === lock.linked.ino;
    if (ours) await releaseLinked(path, lock.text);
  } catch {
    // Not made (a full disk): the link is removed, and no lock file is a free session.
    if (ours) removeQuietly(path);
  } finally {
    letGo(path);
  }
}

/** Releases a lock this process holds and removes its file: the session it locked is removed. */
export function dropLock(path: string): void {
  if (letGo(path) === null) return;
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** The pid holding a session's lock, or null when it is free or stale. */
export function lockHolder(path: string): number | null {
  const holder = readLock(path);
  // An incomplete lock names no process yet (it is being written, or its writer died).
  if (!holder || !lockComplete(holder)) return null;
  if (holder.pid === process.pid && (holder.host === null || holder.host === hostname())) return held.has(path) ? holder.pid : null;
  return staleReason(holder) === null ? holder.pid : null;
}

process.on('exit', () => {
  // A process leaving makes no files: a lock linked to the holder is removed (no lock file is a free session), the
  // holder file with it; one of its own is released in place.
  for (const path of [...held.keys()]) releaseLock(path);
  for (const path of holderFiles) removeQuietly(path);
});

import { close, closeSync, constants, fstatSync, fsync, fsyncSync, ftruncateSync, open as openFile, openSync, readFileSync, renameSync, rmSync, write, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SyncAdapter } from 'lowdb';
import { SessionFileError } from './load-file.js';
import { openOwnFile } from './own-file.js';

/** The file operations a store writes with (tests inject ones that fail like a full disk, or that log their order). */
export interface DocumentFs {
  /** Writes a whole file and flushes it to the disk (so a rename over a document never leaves an empty one after a power failure). */
  writeFileSync(path: string, text: string): void;
  renameSync(from: string, to: string): void;
  rmSync(path: string, options: { force: true }): void;
  /** Flushes an open file or directory to the disk; `path` names it. Node's fsyncSync when absent. */
  fsyncSync?(fd: number, path: string): void;
  /** Writes `bytes` into an open file at `position` (a checkpoint slot); `path` names it. Node's writeSync when absent. */
  writeAtSync?(fd: number, bytes: Uint8Array, position: number, path: string): void;
}

// A temp file is opened without following a link or truncating: what is at its name must be a file of its own
// (one link), else it is removed (a link, not what it leads to) and the open tried once more. A data dir can come
// with a cloned repository: a link planted at `.index.json.tmp` had the listing cache written onto a user's file.
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const notOwn = (code: string | undefined) => code === 'ELOOP' || code === 'ENXIO' || code === 'EISDIR';

/** Opens a temp file for writing, empty, as a file of its own (see TEMP_FLAGS). */
function openTempSync(path: string): number {
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, TEMP_FLAGS, 0o666);
    } catch (error) {
      if (attempt > 0 || !notOwn((error as NodeJS.ErrnoException).code)) throw error;
      rmSync(path, { force: true, recursive: true });
      continue;
    }
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.nlink === 1) {
      ftruncateSync(fd, 0);
      return fd;
    }
    closeSync(fd);
    if (attempt > 0) throw new Error(`${path} is not a file of troupe's own — move it out of the way`);
    rmSync(path, { force: true, recursive: true });
  }
}

/**
 * Creates a file that must not exist yet, holding `bytes`: the create (O_EXCL: the check that nothing is at the name
 * and the claim of it, in one call) off the event loop, the bytes written on the loop as it returns (a write to an
 * open file waits on no directory: as a thread-pool call it waited its turn behind every other session's). Resolves
 * its descriptor, open and not yet flushed to the disk (its caller flushes it, or replaces the file with a flushed
 * one, before the directory is), or null when something is at the name. A write that fails removes the file.
 */
export function createNewFile(path: string, bytes: Uint8Array): Promise<number | null> {
  return new Promise<number | null>((resolve, reject) =>
    openFile(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666, (error, fd) => {
      if (error) return error.code === 'EEXIST' ? resolve(null) : reject(error);
      try {
        writeFileSync(fd, bytes);
      } catch (failure) {
        closeSync(fd);
        rmSync(path, { force: true });
        return reject(failure);
      }
      resolve(fd);
    }),
  );
}

/** Writes a whole temp file and flushes it, synchronously. */
function writeTempSync(path: string, text: string): void {
  const fd = openTempSync(path);
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The most a store document (a session file, the listing cache) may weigh: far above any troupe writes (its parts are
 * bounded: contexts by max_length, memory by its budget) and below what one string and its parse can hold.
 */
export const MAX_STORE_FILE_BYTES = 256 * 1024 * 1024;

/** The bytes of a file of the store's own (`what` names it in errors): see openOwnFile. Throws ENOENT as readFileSync does. */
export function readOwnFile(path: string, what: string): Buffer {
  const fd = openOwnFile(path, constants.O_RDONLY, what);
  try {
    // A 1.9 GB (sparse) document was read whole (2 GB resident, 8 s) before its parse failed.
    const { size } = fstatSync(fd);
    if (size > MAX_STORE_FILE_BYTES) throw new SessionFileError(`${path} is ${size} bytes, more than troupe writes in ${what} — move it out of the way`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes all of `bytes` into an open file at `position`, synchronously. */
function writeAtSync(fd: number, bytes: Uint8Array, position: number): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at, position + at);
}

/** The real file system. */
export const NODE_DOCUMENT_FS: DocumentFs = {
  writeFileSync: writeTempSync,
  renameSync,
  rmSync,
  fsyncSync: (fd) => fsyncSync(fd),
  writeAtSync: (fd, bytes, position) => writeAtSync(fd, bytes, position),
};

/** The flush of an open file that `fs` does (Node's fsyncSync when it brings none). */
export function fsyncOf(fs: DocumentFs): (fd: number, path: string) => void {
  return fs.fsyncSync ? (fd, path) => fs.fsyncSync!(fd, path) : (fd) => fsyncSync(fd);
}

/**
 * The file operations of a checkpoint, off the event loop. For the real file system these are Node's
 * asynchronous calls (run on libuv's thread pool while the loop serves other sessions); an injected
 * `DocumentFs` (tests that fail like a full disk, or log the order of writes) is called as it is, each call
 * one step of the same asynchronous write, so appends still interleave with it as they do on the real one.
 */
export interface AsyncDocumentFs {
  /** Flushes an open file to the disk. */
  fsync(fd: number, path: string): Promise<void>;
  /** Writes all of `bytes` into an open file at `position`. */
  writeAt(fd: number, bytes: Uint8Array, position: number, path: string): Promise<void>;
}

const fsyncAsync = (fd: number) => new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));

/** Writes all of `bytes` into an open file at `position`, with Node's callback call (a short write goes on from where it stopped). */
function writeAt(fd: number, bytes: Uint8Array, position: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const from = (at: number) =>
      write(fd, bytes, at, bytes.length - at, position + at, (failure, written) => {
        if (failure) return reject(failure);
        if (at + written < bytes.length) return from(at + written);
        resolve();
      });
    from(0);
  });
}

const NODE_ASYNC_FS: AsyncDocumentFs = {
  fsync: (fd) => fsyncAsync(fd),
  writeAt: (fd, bytes, position) => writeAt(fd, bytes, position),
};

/** The asynchronous face of `fs` (see AsyncDocumentFs). */
export function asyncFs(fs: DocumentFs): AsyncDocumentFs {
  if (fs === NODE_DOCUMENT_FS) return NODE_ASYNC_FS;
  const flush = fsyncOf(fs);
  return {
    fsync: async (fd, path) => flush(fd, path),
    writeAt: fs.writeAtSync ? async (fd, bytes, position, path) => fs.writeAtSync!(fd, bytes, position, path) : (fd, bytes, position) => writeAt(fd, bytes, position),
  };
}

/** Flushes a directory's entries to the disk, so a rename in it survives a power failure. */
export function syncDirectory(dir: string, fs: DocumentFs = NODE_DOCUMENT_FS): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncOf(fs)(fd, dir);
  } finally {
    closeSync(fd);
  }
}

/** Flushes a directory's entries to the disk off the event loop (see AsyncDocumentFs), so a create or rename in it survives a power failure. */
export function syncDirectoryAsync(dir: string, fs: DocumentFs = NODE_DOCUMENT_FS): Promise<void> {
  // Node's callback calls (no FileHandle): a directory is flushed at every session's pause.
  return new Promise<void>((resolve, reject) =>
    openFile(dir, constants.O_RDONLY, (error, fd) => {
      if (error) return reject(error);
      asyncFs(fs)
        .fsync(fd, dir)
        .then(
          () => close(fd, (closing) => (closing ? reject(closing) : resolve())),
          (failure: unknown) => close(fd, () => reject(failure)),
        );
    }),
  );
}

/**
 * A lowdb adapter that writes a whole JSON document synchronously: to `.<name>.tmp` beside it, flushed to
 * the disk, then renamed over it, so the document is either the old one or the new one. A write that fails (a full
 * disk, a quota) removes its temp file at once and throws; the document itself is untouched.
 */
export class DocumentFile<T> implements SyncAdapter<T> {
  /** Where a write goes before it is renamed into place. */
  readonly tempPath: string;

  constructor(
    readonly path: string,
    private readonly codec: { stringify: (data: T) => string; parse: (text: string) => T },
    private readonly fs: DocumentFs = NODE_DOCUMENT_FS,
  ) {
    this.tempPath = join(dirname(path), `.${basename(path)}.tmp`);
  }

  /** The parsed document, or null when there is none. */
  read(): T | null {
    let text: string;
    try {
      text = readOwnFile(this.path, 'a file troupe writes').toString('utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return this.codec.parse(text);
  }

  /** Replaces the document; on failure the temp file is gone and the old document stays. */
  write(data: T): void {
    const text = this.codec.stringify(data);
    try {
      this.fs.writeFileSync(this.tempPath, text);
      this.fs.renameSync(this.tempPath, this.path);
    } catch (error) {
      try {
        this.fs.rmSync(this.tempPath, { force: true });
      } catch {
        // nothing more can be done here; the next open removes it
      }
      throw error;
    }
  }

  /** Makes the last write survive a power failure (the rename is in the directory, which is flushed). */
  syncDirectory(): void {
    syncDirectory(dirname(this.path), this.fs);
  }
}

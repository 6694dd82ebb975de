import {
  close,
  closeSync,
  constants,
  fstat,
  fstatSync,
  fsync,
  fsyncSync,
  ftruncate,
  ftruncateSync,
  open as openFile,
  openSync,
  readFileSync,
  rename as renameFile,
  renameSync,
  rmSync,
  write,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
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
 * The same open, off the event loop. Tried first as a create of a new file (O_EXCL): a write's temp file is gone
 * once it is renamed, so the usual open makes a file of its own and empty at once, without the check and the cut
 * (two more calls on the thread pool for every document written); anything at the name goes the long way.
 */
function openTemp(path: string): Promise<number> {
  return new Promise<number>((resolve, reject) =>
    openFile(path, TEMP_FLAGS | constants.O_EXCL, 0o666, (error, fd) => (!error ? resolve(fd) : error.code === 'EEXIST' ? openTempOver(path).then(resolve, reject) : reject(error))),
  );
}

/** Opens a temp file where something is at its name already: it is used when it is a file of its own, else removed and the open tried once more. */
function openTempOver(path: string, attempt = 0): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const again = () => rm(path, { force: true, recursive: true }).then(() => openTempOver(path, attempt + 1).then(resolve, reject), reject);
    openFile(path, TEMP_FLAGS, 0o666, (error, fd) => {
      if (error) return attempt === 0 && notOwn(error.code) ? again() : reject(error);
      fstat(fd, (failure, stat) => {
        const own = !failure && stat.isFile() && stat.nlink === 1;
        if (own) return ftruncate(fd, 0, (cutting) => (cutting ? close(fd, () => reject(cutting)) : resolve(fd)));
        close(fd, () => (failure ? reject(failure) : attempt === 0 ? again() : reject(new Error(`${path} is not a file of troupe's own — move it out of the way`))));
      });
    });
  });
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

/** The real file system. */
export const NODE_DOCUMENT_FS: DocumentFs = {
  writeFileSync: writeTempSync,
  renameSync,
  rmSync,
  fsyncSync: (fd) => fsyncSync(fd),
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
  /** Writes a whole file (text, or its UTF-8 bytes) and flushes it. */
  writeFile(path: string, text: string | Uint8Array): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string): Promise<void>;
  fsync(fd: number, path: string): Promise<void>;
}

const fsyncAsync = (fd: number) => new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));

/** Writes a whole file and flushes it, with Node's callback calls (one buffer, no FileHandle: cheaper for many small documents). */
function writeFlushed(path: string, text: string | Uint8Array): Promise<void> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  return new Promise<void>((resolve, reject) => {
    openTemp(path).then((fd) => {
      const done = (failure: Error | null) => close(fd, (closing) => ((failure ?? closing) ? reject(failure ?? closing) : resolve()));
      const from = (at: number) =>
        write(fd, bytes, at, bytes.length - at, at, (failure, written) => {
          if (failure) return done(failure);
          if (at + written < bytes.length) return from(at + written);
          fsync(fd, (flushing) => done(flushing));
        });
      from(0);
    }, reject);
  });
}

const NODE_ASYNC_FS: AsyncDocumentFs = {
  writeFile: writeFlushed,
  // The callback call, as the writes: no promise machinery of fs/promises per document.
  rename: (from, to) => new Promise<void>((resolve, reject) => renameFile(from, to, (error) => (error ? reject(error) : resolve()))),
  rm: (path) => rm(path, { force: true }),
  fsync: (fd) => fsyncAsync(fd),
};

/** The asynchronous face of `fs` (see AsyncDocumentFs). */
export function asyncFs(fs: DocumentFs): AsyncDocumentFs {
  if (fs === NODE_DOCUMENT_FS) return NODE_ASYNC_FS;
  const flush = fsyncOf(fs);
  return {
    writeFile: async (path, text) => fs.writeFileSync(path, typeof text === 'string' ? text : Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString('utf8')),
    rename: async (from, to) => fs.renameSync(from, to),
    rm: async (path) => fs.rmSync(path, { force: true }),
    fsync: async (fd, path) => flush(fd, path),
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

  /**
   * Replaces the document with `text` off the event loop (see AsyncDocumentFs): the temp file written and
   * flushed, then renamed over it; with `durable`, the directory is flushed after the rename. On failure the
   * temp file is gone and the old document stays. One write at a time: the caller waits for the last.
   */
  async writeText(text: string | Uint8Array, options: { durable?: boolean } = {}): Promise<void> {
    const fs = asyncFs(this.fs);
    try {
      await fs.writeFile(this.tempPath, text);
      await fs.rename(this.tempPath, this.path);
    } catch (error) {
      await fs.rm(this.tempPath).catch(() => undefined);
      throw error;
    }
    if (options.durable) await syncDirectoryAsync(dirname(this.path), this.fs);
  }

  /** Makes the last write survive a power failure (the rename is in the directory, which is flushed). */
  syncDirectory(): void {
    syncDirectory(dirname(this.path), this.fs);
  }
}

import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SyncAdapter } from 'lowdb';

/** The file operations a document is written with (tests inject ones that fail like a full disk). */
export interface DocumentFs {
  writeFileSync(path: string, text: string): void;
  renameSync(from: string, to: string): void;
  rmSync(path: string, options: { force: true }): void;
}

/** The real file system. */
export const NODE_DOCUMENT_FS: DocumentFs = { writeFileSync, renameSync, rmSync };

/**
 * A lowdb adapter that writes a whole JSON document synchronously: to `.<name>.tmp` beside it, then
 * renamed over it, so the document is either the old one or the new one. A write that fails (a full
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
      text = readFileSync(this.path, 'utf8');
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
}

import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { DataFile } from 'lowdb/node';
import { UserError } from '../llm/errors.js';
import { checkDataDir, dataDirError } from './data-dir.js';
import { acquireLock, lockHolder, releaseLock } from './lock.js';
import { CURRENT_FORMAT, parseSessionFile, SessionFileError, type FileFormat, type Loaded } from './load-file.js';
import { redactorFrom, type Redactor } from '../llm/redact.js';
import type { SessionFile } from './session-file.js';
import { checkId, newestFirst, type SessionHandle, type Store, type StoredEntry } from './store.js';

/** Options of the lowdb store. */
export interface LowdbStoreOptions {
  /** Redacts secrets from the serialised text (default: from process.env). */
  redact?: Redactor;
  /** JSON indentation (default 0: compact; the whole document is rewritten at every write). */
  indent?: number;
  /** The file format to read (tests inject a future version to exercise migration). */
  format?: FileFormat;
}

/** Sessions as JSON files under `<dataDir>/sessions/`, written with lowdb (temp file + rename), one lock file per session. */
export class LowdbStore implements Store {
  readonly dir: string;
  private readonly dataDir: string;
  private readonly redact: Redactor;
  private readonly indent: number;
  private readonly format: FileFormat;

  constructor(dataDir: string, options: LowdbStoreOptions = {}) {
    this.format = options.format ?? CURRENT_FORMAT;
    this.dataDir = dataDir;
    this.dir = join(dataDir, 'sessions');
    this.redact = options.redact ?? redactorFrom();
    this.indent = options.indent ?? 0;
  }

  /** Path of a session's file. */
  pathOf(id: string): string {
    return join(this.dir, `${checkId(id)}.json`);
  }

  /** Path of a session's lock file. */
  lockOf(id: string): string {
    return join(this.dir, `${checkId(id)}.lock`);
  }

  async create(file: SessionFile): Promise<SessionHandle> {
    const lock = this.lockOf(file.id);
    let locked = false;
    try {
      mkdirSync(this.dir, { recursive: true });
      acquireLock(lock, file.id);
      locked = true;
      if (existsSync(this.pathOf(file.id))) throw new UserError(`session ${file.id} already exists in ${this.dir} — choose another id`);
      const handle = this.handle(file);
      await handle.write();
      return handle;
    } catch (error) {
      if (locked) releaseLock(lock);
      throw dataDirError(error, this.dataDir, 'save the session');
    }
  }

  async open(id: string): Promise<SessionHandle> {
    const path = this.pathOf(id);
    this.mustExist(id, path);
    const lock = this.lockOf(id);
    try {
      acquireLock(lock, id);
    } catch (error) {
      throw dataDirError(error, this.dataDir, `open session ${id}`);
    }
    try {
      const { file, storedVersion } = this.load(id, path);
      // Keep the file as it was before its first write in the new format.
      if (storedVersion < this.format.version) copyFileSync(path, `${path}.v${storedVersion}.bak`);
      return this.handle(file);
    } catch (error) {
      releaseLock(lock);
      throw dataDirError(error, this.dataDir, `open session ${id}`);
    }
  }

  async read(id: string): Promise<SessionFile> {
    const path = this.pathOf(id);
    this.mustExist(id, path);
    try {
      return this.load(id, path).file;
    } catch (error) {
      throw dataDirError(error, this.dataDir, `read session ${id}`);
    }
  }

  private mustExist(id: string, path: string): void {
    if (existsSync(path)) return;
    checkDataDir(this.dataDir);
    throw new UserError(`no session ${id} in ${this.dir} — run troupe sessions to list them`);
  }

  private load(id: string, path: string): Loaded {
    const loaded = parseSessionFile(readFileSync(path, 'utf8'), path, this.format);
    if (loaded.file.id !== id) throw new SessionFileError(`${path}: id "${loaded.file.id}" does not match the file name — rename the file to ${loaded.file.id}.json`);
    return loaded;
  }

  async ids(): Promise<string[]> {
    checkDataDir(this.dataDir);
    if (!existsSync(this.dir)) return [];
    try {
      return readdirSync(this.dir).filter((f) => f.endsWith('.json') && !f.startsWith('.')).map((f) => f.slice(0, -'.json'.length));
    } catch (error) {
      throw dataDirError(error, this.dataDir, 'list sessions');
    }
  }

  async list(): Promise<StoredEntry[]> {
    const entries: StoredEntry[] = [];
    for (const id of await this.ids()) {
      const location = join(this.dir, `${id}.json`);
      try {
        const file = this.load(id, location).file;
        entries.push({ id, location, file, lockedBy: lockHolder(this.lockOf(id)) });
      } catch (error) {
        entries.push({ id, location, error: (dataDirError(error, this.dataDir, 'read it') as Error).message });
      }
    }
    return newestFirst(entries);
  }

  private handle(file: SessionFile): SessionHandle {
    const path = this.pathOf(file.id);
    const lock = this.lockOf(file.id);
    const dataDir = this.dataDir;
    const stringify = (data: SessionFile) => this.redact(JSON.stringify(data, null, this.indent || undefined));
    // Not JSONFilePreset: under NODE_ENV=test it silently keeps data in memory.
    const db = new Low<SessionFile>(new DataFile<SessionFile>(path, { parse: JSON.parse, stringify }), file);
    let closed = false;
    let last: Promise<void> = Promise.resolve();
    return {
      id: file.id,
      location: path,
      get data() {
        return db.data;
      },
      set data(value: SessionFile) {
        db.data = value;
      },
      write() {
        if (closed) return Promise.reject(new Error(`session ${file.id} is closed`));
        last = db.write().catch((error: unknown) => {
          throw dataDirError(error, dataDir, `save session ${file.id}`);
        });
        return last;
      },
      async close() {
        if (closed) return;
        closed = true;
        await last.catch(() => undefined);
        releaseLock(lock);
      },
    };
  }
}

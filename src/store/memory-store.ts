import { UserError } from '../llm/errors.js';
import { SessionLockedError } from './lock.js';
import { parseSessionFile } from './load-file.js';
import type { SessionFile } from './session-file.js';
import { checkId, newestFirst, type SessionHandle, type Store, type StoredEntry } from './store.js';

/** Sessions kept in memory as serialised text (so every write round-trips like a file); for tests. */
export class MemoryStore implements Store {
  /** Stored text per session id; tests may read or corrupt it. */
  readonly texts = new Map<string, string>();
  /** Number of writes performed, per session id. */
  readonly writes = new Map<string, number>();
  private readonly open_ = new Set<string>();

  /** `onWrite` sees every stored text (tests use it to crash at each write). */
  constructor(private readonly onWrite?: (id: string, text: string) => void) {}

  async create(file: SessionFile): Promise<SessionHandle> {
    checkId(file.id);
    if (this.texts.has(file.id)) throw new UserError(`session ${file.id} already exists — choose another id`);
    this.lock(file.id);
    const handle = this.handle(file);
    await handle.write();
    return handle;
  }

  async open(id: string): Promise<SessionHandle> {
    const text = this.texts.get(checkId(id));
    if (text === undefined) throw new UserError(`no session ${id} — run troupe sessions to list them`);
    this.lock(id);
    try {
      return this.handle(parseSessionFile(text, `memory:${id}`).file);
    } catch (error) {
      this.open_.delete(id);
      throw error;
    }
  }

  async read(id: string): Promise<SessionFile> {
    const text = this.texts.get(checkId(id));
    if (text === undefined) throw new UserError(`no session ${id} — run troupe sessions to list them`);
    return parseSessionFile(text, `memory:${id}`).file;
  }

  async ids(): Promise<string[]> {
    return [...this.texts.keys()];
  }

  async list(): Promise<StoredEntry[]> {
    const out: StoredEntry[] = [];
    for (const [id, text] of this.texts) {
      const location = `memory:${id}`;
      try {
        out.push({ id, location, file: parseSessionFile(text, location).file, lockedBy: this.open_.has(id) ? process.pid : null });
      } catch (error) {
        out.push({ id, location, error: (error as Error).message });
      }
    }
    return newestFirst(out);
  }

  private lock(id: string): void {
    if (this.open_.has(id)) throw new SessionLockedError(id, process.pid);
    this.open_.add(id);
  }

  private handle(initial: SessionFile): SessionHandle {
    const id = initial.id;
    let closed = false;
    const handle: SessionHandle = {
      id,
      location: `memory:${id}`,
      data: initial,
      write: async () => {
        if (closed) throw new Error(`session ${id} is closed`);
        const text = JSON.stringify(handle.data);
        this.texts.set(id, text);
        this.onWrite?.(id, text);
        this.writes.set(id, (this.writes.get(id) ?? 0) + 1);
      },
      close: async () => {
        if (closed) return;
        closed = true;
        this.open_.delete(id);
      },
    };
    return handle;
  }
}

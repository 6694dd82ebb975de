import type { SessionDocument } from '../../src/store/session-file.js';
import type { OpenedSession, ReadSession, SessionHandle, Store, StoredEntry } from '../../src/store/store.js';

/**
 * A store that hands every call to `inner`; the handles of the sessions it creates go through `wrap`, which
 * a test or bench overrides to hold, fail or time their writes.
 */
export class WrappedStore<S extends Store = Store> implements Store {
  constructor(readonly inner: S) {}

  /** The handle a new session writes through (by default the inner store's own). */
  protected wrap(handle: SessionHandle): SessionHandle {
    return handle;
  }

  async create(doc: SessionDocument): Promise<SessionHandle> {
    return this.wrap(await this.inner.create(doc));
  }
  open(id: string, options?: { recentEvents?: number }): Promise<OpenedSession> {
    return this.inner.open(id, options);
  }
  read(id: string): Promise<ReadSession> {
    return this.inner.read(id);
  }
  list(): Promise<StoredEntry[]> {
    return this.inner.list();
  }
  ids(): Promise<string[]> {
    return this.inner.ids();
  }
}

/** A handle that passes every call to `h`, except those given in `changes`. */
export function handleWith(h: SessionHandle, changes: Partial<Pick<SessionHandle, 'append' | 'checkpoint' | 'flush' | 'close'>>): SessionHandle {
  return {
    id: h.id,
    location: h.location,
    get doc() {
      return h.doc;
    },
    append: (record) => h.append(record),
    checkpoint: (c, m, o) => h.checkpoint(c, m, o),
    flush: (o) => h.flush(o),
    vouch: (sources) => h.vouch(sources),
    close: () => h.close(),
    ...changes,
  };
}

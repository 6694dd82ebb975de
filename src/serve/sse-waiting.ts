/** What waits in a WaitingReaders: the queue it waits in and its place there, kept by the queue. */
export interface Waiter<T extends Waiter<T>> {
  waitsIn: WaitingReaders<T> | null;
  waitsAt: number;
}

/**
 * Readers waiting for their write, oldest first, each once: an array and the reader's place in it, so the adds
 * and removals of a fan-out to a thousand readers allocate nothing (a Set grew and shrank its table each time).
 */
export class WaitingReaders<T extends Waiter<T>> {
  private list: (T | null)[] = [];
  private head = 0;
  private end = 0;
  /** How many wait. */
  size = 0;

  /** Adds a reader at the end, unless it waits here already (it keeps its place). */
  add(client: T): void {
    if (client.waitsIn === this) return;
    // Full, with a quarter of its places left empty (passed, or readers taken out): those waiting move to the
    // front, so a queue that never empties does not grow for ever, and a full one is not compacted at each add.
    if (this.end === this.list.length && (this.list.length - this.size) * 4 >= this.list.length) this.compact();
    client.waitsIn = this;
    client.waitsAt = this.end;
    if (this.end < this.list.length) this.list[this.end] = client;
    else this.list.push(client);
    this.end += 1;
    this.size += 1;
  }

  /** Moves those waiting to the front, in order. */
  private compact(): void {
    let to = 0;
    for (let i = this.head; i < this.end; i++) {
      const client = this.list[i];
      this.list[i] = null;
      if (!client) continue;
      client.waitsAt = to;
      this.list[to++] = client;
    }
    this.head = 0;
    this.end = to;
  }

  /** How many places its array has (what it holds at most at once, not what passed through it). */
  get capacity(): number {
    return this.list.length;
  }

  /** Whether `client` waits here. */
  has(client: T): boolean {
    return client.waitsIn === this;
  }

  /** Takes `client` out (its place stays empty until the oldest pass it). */
  delete(client: T): void {
    if (client.waitsIn !== this) return;
    this.list[client.waitsAt] = null;
    client.waitsIn = null;
    this.size -= 1;
  }

  /** Takes the oldest reader out, or null when none waits. */
  shift(): T | null {
    while (this.head < this.end) {
      const client = this.list[this.head];
      this.list[this.head] = null;
      this.head += 1;
      if (client) {
        client.waitsIn = null;
        this.size -= 1;
        if (this.size === 0) this.head = this.end = 0;
        return client;
      }
    }
    this.head = this.end = 0;
    return null;
  }
}

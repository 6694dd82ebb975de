/**
 * Connections held to a cap, counted as idle or busy (how many requests or streams each has open): a new one over
 * the cap makes room by closing the one idle longest, and is refused when every held one is busy. One policy for
 * HTTP/1 sockets (capConnections) and HTTP/2 sessions (capHttp2Sessions).
 */
export class IdleFirst<T> {
  // Idle connections in the order they became idle (a Set keeps insertion order): the first is the one to close.
  private readonly idle = new Set<T>();
  private readonly busy = new Map<T, number>();

  /** A pool holding at most `max` connections. */
  constructor(private readonly max: number) {}

  /** How many connections it holds. */
  get size(): number {
    return this.idle.size + this.busy.size;
  }

  /** Whether it holds `conn`. */
  holds(conn: T): boolean {
    return this.idle.has(conn) || this.busy.has(conn);
  }

  /** Takes a new connection, closing the one idle longest (`close`) when full; false when every held one is busy (refuse it). */
  admit(conn: T, close: (oldest: T) => void): boolean {
    if (this.size >= this.max) {
      const oldest = this.idle.values().next();
      if (oldest.done) return false;
      this.idle.delete(oldest.value);
      close(oldest.value);
    }
    this.idle.add(conn);
    return true;
  }

  /** A request or stream began on `conn`. */
  began(conn: T): void {
    this.idle.delete(conn);
    this.busy.set(conn, (this.busy.get(conn) ?? 0) + 1);
  }

  /** A request or stream on `conn` ended (`open`: the connection is still open); false when it was counted off already (it closed first). */
  ended(conn: T, open: boolean): boolean {
    const count = this.busy.get(conn);
    if (count === undefined) return false;
    if (count > 1) this.busy.set(conn, count - 1);
    else {
      this.busy.delete(conn);
      if (open) this.idle.add(conn);
    }
    return true;
  }

  /** `conn` closed: how many requests or streams it still had open. */
  closed(conn: T): number {
    this.idle.delete(conn);
    const open = this.busy.get(conn) ?? 0;
    this.busy.delete(conn);
    return open;
  }
}

const ignore = () => undefined;

/**
 * A flush many callers share (a group commit): one runs at a time, and a caller that asks while one runs is served
 * by the next, which starts once that one has ended (so it covers what the caller wrote before asking) and serves
 * every caller that asked meanwhile. Each caller gets the outcome of the flush that covers it.
 */
export class SharedFlush {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly flush: () => Promise<void>) {}

  /** Resolves once a flush that started after this call has ended (rejects as it failed). */
  run(): Promise<void> {
    if (!this.running) return this.start();
    this.next ??= this.running.then(ignore, ignore).then(() => {
      this.next = null;
      // One started since the last ended (by a caller that found none running) covers the waiters too.
      return this.running ?? this.start();
    });
    return this.next;
  }

  private start(): Promise<void> {
    const run: Promise<void> = this.flush().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }
}

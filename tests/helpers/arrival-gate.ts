/**
 * A barrier for a fake server's replies: each request that passes it is held until all `expected` requests
 * have arrived. No reply leaves before the last arrives, so a gate that opened proves those requests were
 * in flight together, whatever the machine's load (no wall-clock comparison decides it). If they never all
 * come (the caller sends them one after another), a backstop opens the gate so the run ends and the test
 * fails on `opened` rather than hanging.
 */
export class ArrivalGate {
  /** Who arrived, in arrival order. */
  readonly arrivals: string[] = [];
  /** True once every expected request arrived while none had been answered; false if only the backstop let them go. */
  opened = false;
  private readonly waiting: (() => void)[] = [];
  private backstop: NodeJS.Timeout | null = null;
  private released = false;

  constructor(
    readonly expected: readonly string[],
    private readonly backstopMs = 15_000,
  ) {}

  /** Holds a request (`who` names it) until all expected requests have arrived. */
  pass(who: string): Promise<void> {
    this.arrivals.push(who);
    if (this.released) return Promise.resolve();
    if (this.arrivals.length === this.expected.length) {
      this.opened = true;
      this.release();
      return Promise.resolve();
    }
    if (!this.backstop) {
      this.backstop = setTimeout(() => this.release(), this.backstopMs);
      this.backstop.unref();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    this.released = true;
    if (this.backstop) clearTimeout(this.backstop);
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

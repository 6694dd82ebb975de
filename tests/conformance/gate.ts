import { until } from '../helpers/child.js';
import type { FakeReply, RecordedRequest } from '../helpers/fake-openai-server.js';
import type { Script } from './harness.js';

/**
 * Holds the answers of some roles until the test releases them, one at a time: concurrent branches then
 * finish in the order the test chooses, the same on every backend (each answer is released once the one before
 * it has been applied, as its events show). Other roles are answered at once.
 */
export class Gate {
  private readonly held = new Map<string, { req: RecordedRequest; n: number; answer: (reply: FakeReply | Promise<FakeReply>) => void }[]>();
  private readonly counts = new Map<string, number>();
  private readonly arrivals = new Map<string, number>();

  constructor(
    private readonly gated: ReadonlySet<string>,
    private readonly answer: (role: string, req: RecordedRequest, n: number) => FakeReply | Promise<FakeReply>,
    private readonly roleOf: (req: RecordedRequest) => string,
  ) {}

  readonly script: Script = (req) => {
    const role = this.roleOf(req);
    const n = this.counts.get(role) ?? 0;
    this.counts.set(role, n + 1);
    this.arrivals.set(role, (this.arrivals.get(role) ?? 0) + 1);
    if (!this.gated.has(role)) return this.answer(role, req, n);
    return new Promise<FakeReply>((resolve) => {
      const queue = this.held.get(role) ?? [];
      queue.push({ req, n, answer: (reply) => void Promise.resolve(reply).then(resolve) });
      this.held.set(role, queue);
    });
  };

  /** Waits for the `call`-th request (1-based) of a role, then answers the oldest one held for it whose caller is still there. */
  async release(role: string, call: number): Promise<void> {
    const waiting = () => (this.held.get(role) ?? []).filter((h) => !h.req.hungUp);
    await until(`${role} call #${call} to reach the model server`, () => (this.arrivals.get(role) ?? 0) >= call && waiting().length > 0);
    const next = waiting()[0]!;
    const queue = this.held.get(role)!;
    // Requests of a caller that went away (a killed worker) are dropped, not answered.
    for (const h of queue.splice(0, queue.indexOf(next) + 1)) if (h !== next) h.answer({ status: 500 });
    next.answer(this.answer(role, next.req, next.n));
  }

  /** How many requests of a role reached the model server. */
  arrived(role: string): number {
    return this.arrivals.get(role) ?? 0;
  }
}

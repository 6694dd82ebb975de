import type { EngineInput } from '../engine/input-events.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { SessionState } from '../engine/session.js';
import type { TroupeBus } from '../runtime/bus.js';
import { UserError } from '../llm/errors.js';
import type { SessionHandle } from './store.js';

/** Options of a recorder: injected clock and the opaque state of other modules. */
export interface RecorderOptions {
  clock?: () => Date;
  /** Memory module state (its toJSON()), stored opaque. */
  memory?: () => unknown;
  /** Usage totals, stored opaque. */
  usage?: () => unknown;
}

// Streaming deltas repeat the final agent_message piecewise: they would multiply the file size for nothing.
const SKIPPED = new Set<string>(['agent_delta']);

/**
 * Persists a running session: appends bus events to the log and writes the file after every engine
 * step (every transition and every user input). The write is scheduled for the end of the step, so the
 * snapshot and the events it produced land in the file together, in one atomic replace.
 */
export class SessionRecorder {
  private snapshot: SessionState;
  private scheduled = false;
  private failure: Error | null = null;
  private readonly clock: () => Date;

  constructor(readonly handle: SessionHandle, private readonly options: RecorderOptions = {}) {
    this.snapshot = handle.data.snapshot;
    this.clock = options.clock ?? (() => new Date());
  }

  /** The Runner's onStep hook. */
  readonly onStep = (session: SessionState, _input: EngineInput): void => {
    this.snapshot = session;
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      void this.flush();
    });
  };

  /** Subscribes to a bus so its events go into the log. */
  attach(bus: TroupeBus): void {
    bus.on('*', (e: TroupeEvent) => {
      if (!SKIPPED.has(e.type)) this.handle.data.events.push(e);
    });
  }

  /** Writes the current snapshot and log now; a write failure is kept and reported by close(). */
  flush(): Promise<void> {
    const data = this.handle.data;
    const s = this.snapshot;
    data.snapshot = s;
    data.mode = s.mode;
    if (s.brief) data.brief = s.brief;
    data.updatedAt = this.clock().toISOString();
    if (this.options.memory) data.memory = this.options.memory();
    if (this.options.usage) data.usage = this.options.usage();
    return this.handle.write().catch((error: unknown) => {
      this.failure ??= error instanceof Error ? error : new Error(String(error));
    });
  }

  /** Writes the final state, releases the session and reports a failed write as a one-line error. */
  async close(): Promise<void> {
    await this.flush();
    await this.handle.close();
    if (this.failure) throw new UserError(`could not save session ${this.handle.id} to ${this.handle.location}: ${this.failure.message.split('\n')[0]}`);
  }
}

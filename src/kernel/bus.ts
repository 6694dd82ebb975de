import { EventEmitter } from 'eventemitter3';
import type { EngineEvent, TroupeEvent, TroupeEventMap, TroupeEventName } from '../engine/event-map.js';

type Listeners = { [K in TroupeEventName]: (e: TroupeEvent & { type: K } & TroupeEventMap[K]) => void } & {
  '*': (e: TroupeEvent) => void;
};

/**
 * The one typed event bus of a session: the store, the UI, the printers and the memory subscribe to it.
 * `stamp` gives an engine event its envelope (session id, sequence number, time from the injected clock);
 * `deliver` hands a stamped event to the subscribers.
 */
export class TroupeBus extends EventEmitter<Listeners> {
  private seq: number;

  constructor(
    private readonly sessionId: string,
    private readonly clock: () => number = Date.now,
    lastSeq = 0,
  ) {
    super();
    this.seq = lastSeq;
  }

  /** The sequence number of the last stamped event that is stored (deltas carry the last one, unchanged). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Builds the published form of an engine event; `stored` events get the next sequence number. */
  stamp(e: EngineEvent, stored = true): TroupeEvent {
    if (stored) this.seq += 1;
    const stamped = e as TroupeEvent;
    stamped.session_id = this.sessionId;
    stamped.seq = this.seq;
    stamped.at = this.clock();
    return stamped;
  }

  /** Publishes a stamped event under its name and under "*". */
  deliver(e: TroupeEvent): void {
    (this.emit as (name: string, value: unknown) => boolean)(e.type, e);
    this.emit('*', e);
  }
}

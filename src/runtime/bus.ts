import { EventEmitter } from 'eventemitter3';
import type { EngineEvent, TroupeEvent, TroupeEventMap, TroupeEventName } from '../engine/event-map.js';

type Listeners = { [K in TroupeEventName]: (e: TroupeEvent & { type: K } & TroupeEventMap[K]) => void } & {
  '*': (e: TroupeEvent) => void;
};

/** The one typed event bus: the TUI, the JSONL printer and the store subscribe to it. */
export class TroupeBus extends EventEmitter<Listeners> {
  constructor(
    private sessionId: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    super();
  }

  /** Session id stamped on events (set once a session is known). */
  setSession(id: string): void {
    this.sessionId = id;
  }

  /** Stamps an engine event and publishes it under its name and under "*". */
  publish(e: EngineEvent): TroupeEvent {
    const stamped = { ...e, session_id: this.sessionId, at: this.clock().toISOString() } as TroupeEvent;
    (this.emit as (name: string, value: unknown) => boolean)(stamped.type, stamped);
    this.emit('*', stamped);
    return stamped;
  }
}

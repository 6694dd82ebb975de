import type { EngineEvent } from './event-map.js';
import type { AgentCall } from './session.js';

/** Work the runtime performs for the pure core; results come back as engine input events. */
export type Effect =
  | { type: 'emit'; event: EngineEvent }
  | { type: 'call_agent'; call: AgentCall }
  | { type: 'abort_call'; turnId: string; reason: string }
  | { type: 'await_user'; reason: string }
  | { type: 'end'; reason: string };

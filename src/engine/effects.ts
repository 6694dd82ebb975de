import type { EngineEvent } from './event-map.js';
import type { AgentCall } from './moves.js';
import type { Evaluation } from './evaluation.js';

/** Work the runtime performs for the pure core; results come back as engine inputs. */
export type Effect =
  | { type: 'emit'; event: EngineEvent }
  | { type: 'call_agent'; call: AgentCall }
  /** Run a definition's code in the sandbox; the result comes back as an `evaluated` input with this id. */
  | { type: 'evaluate'; id: string; evaluation: Evaluation }
  | { type: 'abort_call'; turnId: string; reason: string }
  | { type: 'await_user'; reason: string }
  | { type: 'detach'; reason: string }
  | { type: 'end'; reason: string };

import type { Directive } from '../directive/schema.js';
import type { Decision } from '../arbiter/proposal.js';
import type { Inbox } from './inbox.js';
import type { Mode } from './definition.js';
import type { TransitionRecord } from './session.js';

/** Payload of every troupe event, keyed by its snake_case name. */
export interface TroupeEventMap {
  session_started: { brief: string; mode: Mode; team: string; model: string; initial: string };
  state_entered: { path: string; persona: string; major: string };
  major_entered: { major: string };
  major_exited: { major: string };
  agent_started: { turn_id: string; path: string; persona: string; attempt: number; model: string; inbox: Inbox['kind'] };
  agent_delta: { turn_id: string; persona: string; text?: string; tool_arguments?: string };
  agent_message: { turn_id: string; path: string; persona: string; text: string; turn: number };
  agent_aborted: { turn_id: string; persona: string; reason: string };
  directive: { turn_id: string; path: string; persona: string; directive: Directive; source: 'tool' | 'text' };
  directive_invalid: { turn_id: string; persona: string; error: string; attempt: number; repairing: boolean };
  arbitration: { from: string; decision: Decision };
  transition: { from: string; to: string; reason: string; kind: TransitionRecord['kind'] };
  approval: { by: string; of: string; status: 'APPROVED' | 'REQUEST_REWORK'; reason?: string };
  memory_compressed: { turns_in: number; tokens_before: number; tokens_after: number; summaries: number };
  memory_trimmed: { persona: string; dropped: string[]; tokens_before: number; tokens_after: number; budget: number };
  awaiting_user: { reason: string; code: string; pending?: { from: string; to: string; reason: string } };
  user_input: { text: string };
  command: { name: string; args: string[] };
  mode_changed: { mode: Mode };
  usage: { persona: string | null; model: string; prompt_tokens: number; completion_tokens: number; cost: number | null; total_tokens: number; total_cost: number | null };
  note: { text: string };
  error: { message: string; where: string };
  session_ended: { reason: string; detail?: string };
}

/** Names of all troupe events. */
export type TroupeEventName = keyof TroupeEventMap;

/** An event as the engine produces it: its name and payload. */
export type EngineEvent = { [K in TroupeEventName]: { type: K } & TroupeEventMap[K] }[TroupeEventName];

/** An event as published on the bus: stamped with session id and time. */
export type TroupeEvent = EngineEvent & { session_id: string; at: string };

/** Builds an engine event of a given name. */
export function event<K extends TroupeEventName>(type: K, payload: TroupeEventMap[K]): EngineEvent {
  return { type, ...payload } as EngineEvent;
}
